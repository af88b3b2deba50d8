package priority

import "time"

// Batch is one add of items with controller-runtime's options (AddOpts), as the machine
// applies it once the caller has asked any rate limiter it had to.
type Batch[T comparable] struct {
	Items    []T
	Priority int
	// After delays every item; zero or less makes it ready at once.
	After time.Duration
	// Delays, when not nil, is each item's delay, decided by the caller before the add: the
	// items are then added even after ShutDown, as controller-runtime adds every item whose
	// wait it has asked of its limiter.
	Delays []time.Duration
	// Wait, when set, makes the add rate limited: it returns the limiter's wait for an item,
	// which replaces After if shorter (see Delay).
	Wait func(item T) time.Duration
	// GiveUp, when set, counts an item's requeue and reports whether to give up on it instead
	// of adding it; it is called for every item, even after ShutDown.
	GiveUp func(item T) bool
	// Plain marks an add with neither a delay nor a rate limit, that AddAfter did not make: its
	// items are held in their debounce window, when the state has one (see [State.Hold]).
	Plain bool
}

// AddBatch adds b's items in order at the instant now, with their priority and delays (see
// AddWithOpts), and returns those given up on. After ShutDown it adds nothing, unless b.Delays
// is set.
func (m *Machine[T]) AddBatch(b Batch[T], now time.Time) (gaveUp []T) {
	for i, item := range b.Items {
		if b.GiveUp != nil && b.GiveUp(item) {
			gaveUp = append(gaveUp, item)
			continue
		}
		if m.closed && b.Delays == nil {
			continue
		}
		after := b.After
		if b.Delays != nil {
			after = b.Delays[i]
		} else if b.Wait != nil {
			after = Delay(after, b.Wait(item))
		}
		var readyAt time.Time
		switch {
		case b.Plain:
			m.Hold(item, b.Priority, now)
			continue
		case after > 0:
			readyAt = now.Add(after)
		}
		m.AddWithOpts(item, b.Priority, readyAt)
	}
	return gaveUp
}

// Delay returns the delay of a rate-limited add whose option After is after, given the wait
// its rate limiter decided: the wait, unless after is set and shorter, as in
// controller-runtime.
func Delay(after, wait time.Duration) time.Duration {
	if after == 0 || wait < after {
		return wait
	}
	return after
}
