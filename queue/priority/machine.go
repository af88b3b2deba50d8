package priority

import (
	"time"

	"github.com/actorqueue/workqueue/metrics"
)

// Machine is a priority queue with controller-runtime's rules, as a state machine: the [State]
// of its items and its shutdown. Like [queue.Machine], it is what a queue's owner goroutine
// runs, and runs nothing but that: every instant is an argument, and what the owner must do
// about a step is returned (metric events, when items fall due), not done. The group
// function of a grouped state is the only code of others it runs, and must not panic.
//
// A Machine is not safe for concurrent use. Create it with [NewMachine].
type Machine[T comparable] struct {
	state      *State[T]
	closed     bool // shutting down
	debouncing int  // the items waiting out a debounce window, as last reported
	events     metrics.Events[T]
}

// NewMachine returns an empty machine over state (from [New] or [NewGrouped]), with metric
// events when withMetrics.
func NewMachine[T comparable](state *State[T], withMetrics bool) *Machine[T] {
	return &Machine[T]{state: state, events: metrics.NewEvents[T](withMetrics)}
}

// AddWithOpts adds item with priority, ready at readyAt (zero: at once), merging with an entry
// of the item already ready or waiting (see [State.Add]). It adds even after ShutDown:
// controller-runtime adds the items of a call that began before it, and the owner decides.
func (m *Machine[T]) AddWithOpts(item T, priority int, readyAt time.Time) {
	if !readyAt.IsZero() {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindRetried})
	}
	m.added(item, m.state.Add(item, priority, readyAt))
	m.noteDebouncing() // an add that readies an item ends its window
}

// added reports what an add of item changed for the metrics.
func (m *Machine[T]) added(item T, a Added) {
	if a.Ready {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindAdded, Item: item, Priority: a.Priority})
	}
	if a.Raised {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindReprioritized, Priority: a.Priority, From: a.From})
	}
}

// noteDebouncing reports the number of items waiting out a debounce window, when it changed.
func (m *Machine[T]) noteDebouncing() {
	if n := m.state.Debouncing(); m.events.On() && n != m.debouncing {
		m.debouncing = n
		m.events.Add(metrics.Event[T]{Kind: metrics.KindDebouncing, N: n})
	}
}

// Add adds item at priority zero, ready at once, or held in its debounce window when the state
// has one (see [State.Hold]). After ShutDown it does nothing. at is when the add happened, which
// times the window; the machine keeps it no further: a priority queue's metrics keep their
// instants themselves.
func (m *Machine[T]) Add(item T, at time.Time) {
	if !m.closed {
		m.Hold(item, 0, at)
	}
}

// AddNow adds item at priority zero, ready at once, whether or not adds are debounced. After
// ShutDown it does nothing.
func (m *Machine[T]) AddNow(item T, at time.Time) {
	if !m.closed {
		m.AddWithOpts(item, 0, time.Time{})
	}
}

// Hold adds item with priority at the instant now as a plain add, held in its debounce window
// when the state has one (see [State.Hold]), ready at once otherwise. It adds even after
// ShutDown, as AddWithOpts does.
func (m *Machine[T]) Hold(item T, priority int, now time.Time) {
	a := m.state.Hold(item, priority, now)
	m.added(item, a)
	if a.Absorbed {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindAbsorbed, Item: item})
	}
	m.noteDebouncing()
}

// AddAfter adds item at priority zero, ready at the instant at. After ShutDown it does nothing.
func (m *Machine[T]) AddAfter(item T, at time.Time) {
	if !m.closed {
		m.AddWithOpts(item, 0, at)
	}
}

// NextDue returns the instant the earliest waiting item falls due, as [queue.Machine.NextDue]
// does, and false when nothing will: no item waits, or the machine is shut down
// (controller-runtime's waiting loop ends with the shutdown).
func (m *Machine[T]) NextDue() (time.Time, bool) {
	if m.closed {
		return time.Time{}, false
	}
	return m.state.NextDue()
}

// Due makes ready every waiting item due at now, behind the items ready already.
func (m *Machine[T]) Due(now time.Time) {
	if m.closed {
		return // reported just before the shutdown
	}
	for item, p, ok := m.state.PromoteDue(now); ok; item, p, ok = m.state.PromoteDue(now) {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindAdded, Item: item, Priority: p})
	}
	m.noteDebouncing()
}

// HandOut hands out the best ready item, as of now, and returns it with its priority; ok is
// false when none can go, and always once shut down.
func (m *Machine[T]) HandOut(now time.Time) (item T, priority int, ok bool) {
	if m.closed {
		return item, 0, false
	}
	item, priority, ok = m.state.HandOut(now)
	if ok {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindStarted, Item: item, Priority: priority})
	}
	return item, priority, ok
}

// GiveBack returns item, of priority, handed out to a getter that could not take it, to the
// ready items, behind those of its priority (at, as for Add, is not kept).
func (m *Machine[T]) GiveBack(item T, priority int, at time.Time) {
	m.state.Done(item)
	m.state.Add(item, priority, time.Time{})
	m.events.Add(metrics.Event[T]{Kind: metrics.KindReturned, Item: item, Priority: priority})
}

// Done unlocks item, and reports whether it was handed out.
func (m *Machine[T]) Done(item T) bool {
	if !m.state.Done(item) {
		return false
	}
	m.events.Add(metrics.Event[T]{Kind: metrics.KindFinished, Item: item})
	return true
}

// ShutDown makes the machine hand out nothing more and let waiting items wait for good, those
// waiting out a debounce window included, and reports whether the shutdown began now.
func (m *Machine[T]) ShutDown() bool {
	if m.closed {
		return false
	}
	m.closed = true
	return true
}

// Closed reports whether ShutDown has been called.
func (m *Machine[T]) Closed() bool { return m.closed }

// Events returns the metric events of the steps since the last call (see [metrics.Events.Take]).
func (m *Machine[T]) Events() []metrics.Event[T] { return m.events.Take() }

// Len returns the number of ready items, held-back ones included: controller-runtime's Len.
func (m *Machine[T]) Len() int { return m.state.Len() }

// Processing returns the number of items handed out and not yet done.
func (m *Machine[T]) Processing() int { return m.state.Processing() }

// InProcessing returns the items handed out and not yet done, in no particular order.
func (m *Machine[T]) InProcessing() []T { return m.state.InProcessing() }

// Dirty returns the number of items added again while handed out, which wait for Done.
func (m *Machine[T]) Dirty() int { return m.state.Blocked() }

// Delayed returns the number of items waiting to become ready after a delay, not counting those
// that only wait out a debounce window.
func (m *Machine[T]) Delayed() int { return m.state.Waiting() - m.state.Debouncing() }

// Debouncing returns the number of items waiting out a debounce window.
func (m *Machine[T]) Debouncing() int { return m.state.Debouncing() }

// Superseded reports whether item, handed out, was added again since (see [State.Superseded]).
func (m *Machine[T]) Superseded(item T) bool { return m.state.Superseded(item) }

// TrackSuperseded makes the machine keep the set of superseded items, for SupersededSet.
func (m *Machine[T]) TrackSuperseded() { m.state.TrackSuperseded() }

// SupersededSet returns a copy of the superseded items and true when they changed since the
// last call (see [State.SupersededSet]).
func (m *Machine[T]) SupersededSet() (map[T]struct{}, bool) { return m.state.SupersededSet() }

// OldestSince returns when the item handed out the longest ago was handed out, and false when
// none is.
func (m *Machine[T]) OldestSince() (time.Time, bool) { return m.state.OldestSince() }
