package queue

import (
	"time"

	"github.com/actorqueue/workqueue/delay"
	"github.com/actorqueue/workqueue/metrics"
)

// Machine is a queue with client-go's rules, as a state machine: the [State] of its items, the
// delay heap of its AddAfter, and its shutdown. It is what a queue's owner goroutine runs (see
// package actor), and it runs nothing but that: no goroutines, no channels, no locks, no
// clock. Every instant is an argument, and what the owner must do about a step is returned,
// not done: the metric events to record ([Machine.Events]), the items a delay heap in front of
// another queue must pass on ([Machine.Forwarded]), and when delayed items fall due
// ([Machine.NextDue]).
//
// The only code of others a Machine runs is a custom [Storage] and a group function (see
// [Grouped]). If the storage panics, the step it was part of has changed nothing, but for the
// items of a batch added before it (see [State.Add]). The group function must not panic: the
// owner hands in one that recovers.
//
// A Machine is not safe for concurrent use. Create it with [NewMachine].
type Machine[T comparable] struct {
	state      *State[T]
	delays     delay.Heap[T]
	window     *delay.Window[T] // the debounce window; nil: adds are not debounced
	origin     time.Time        // the delays' instants count from it
	forward    bool             // a delay heap in front of another queue: due items are forwarded
	closed     bool             // shutting down
	delayed    int              // the delay heap's size as last reported
	debouncing int              // the window's size as last reported
	events     metrics.Events[T]
	forwarded  []T
}

// MachineConfig configures a [Machine]. The zero value is a FIFO with no metric events.
type MachineConfig[T comparable] struct {
	// Storage holds the waiting items; nil means a [FIFO].
	Storage Storage[T]
	// Origin is the instant the delays count from: any instant before the first AddAfter.
	Origin time.Time
	// Forward makes the machine only a delay heap in front of another queue: items that fall
	// due are returned by Forwarded instead of being added.
	Forward bool
	// Metrics asks for metric events (see [Machine.Events]).
	Metrics bool
	// Debounce holds each item added with Add in a debounce window (see [Machine.Add]); its
	// zero value holds none.
	Debounce delay.Debounce
}

// NewMachine returns an empty machine configured by c.
func NewMachine[T comparable](c MachineConfig[T]) *Machine[T] {
	m := &Machine[T]{state: New(c.Storage), origin: c.Origin, forward: c.Forward,
		events: metrics.NewEvents[T](c.Metrics)}
	if c.Metrics {
		m.state.TrackInstants(c.Origin)
	}
	if c.Debounce.On() {
		m.window = delay.NewWindow[T](c.Debounce)
	}
	return m
}

// Add marks item, added at the instant at, as needing processing. After [Machine.ShutDown] it
// does nothing.
//
// With a debounce window ([MachineConfig.Debounce]), an item that is neither waiting nor due
// again after its Done is held in the window instead, or its window starts again if it is held
// already (see package delay): it is added once the window ends, as [Machine.AddNow] adds it.
// An item in processing held so is superseded at once ([Machine.Superseded]).
func (m *Machine[T]) Add(item T, at time.Time) {
	if m.window == nil || m.closed || m.forward || m.state.Pending(item) {
		m.AddNow(item, at)
		return
	}
	if m.window.Hold(item, at.Sub(m.origin)) {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindAbsorbed, Item: item})
	} else {
		m.state.Hold(item)
	}
	m.noteDebouncing()
}

// AddNow marks item as needing processing at once, at the instant at, whether or not adds are
// debounced: the adds whose timing is decided already (AddAfter, AddRateLimited, a delayed item
// falling due). An item held in the debounce window leaves it: this add covers the adds it was
// held for. After ShutDown it does nothing.
func (m *Machine[T]) AddNow(item T, at time.Time) {
	switch {
	case m.closed:
	case m.forward:
		m.forwarded = append(m.forwarded, item)
	default:
		if m.state.AddAt(item, at) && m.events.On() {
			m.events.Add(metrics.Event[T]{Kind: metrics.KindAdded, Item: item})
		}
		if m.window != nil && m.window.Drop(item) {
			m.noteDebouncing()
		}
	}
}

// AddAfter adds item once the instant at has come (see [Machine.Due]); an item already delayed
// keeps the earlier of its instants. After ShutDown it does nothing.
func (m *Machine[T]) AddAfter(item T, at time.Time) {
	if m.closed {
		return
	}
	m.delays.Schedule(item, at.Sub(m.origin))
	m.noteDelayed()
}

// NextDue returns the instant the earliest delayed item falls due, or the earliest debounce
// window ends, and false when none waits: the owner then applies Due, in order with the
// commands it applies (a queue posts it to its own mailbox).
func (m *Machine[T]) NextDue() (time.Time, bool) {
	at, ok := m.delays.Next()
	if m.window != nil {
		if held, any := m.window.Next(); any && (!ok || held < at) {
			at, ok = held, true
		}
	}
	if !ok {
		return time.Time{}, false
	}
	return m.origin.Add(at), true
}

// Due adds every delayed item whose instant is not after now, and every item whose debounce
// window has ended by now, in the order of their instants (of a delayed item and a held one due
// at the same instant, the delayed one first).
func (m *Machine[T]) Due(now time.Time) {
	at := now.Sub(m.origin)
	for {
		delayed, dueDelayed := m.delays.Next()
		dueDelayed = dueDelayed && delayed <= at
		if m.window != nil {
			if held, ok := m.window.Next(); ok && held <= at && (!dueDelayed || held < delayed) {
				item, _ := m.window.PopDue(at)
				m.release(item, now)
				continue
			}
		}
		if !dueDelayed {
			break
		}
		item, _ := m.delays.PopDue(at)
		m.AddNow(item, now)
	}
	m.noteDelayed()
	m.noteDebouncing()
}

// release adds item, whose debounce window ended at now.
func (m *Machine[T]) release(item T, now time.Time) {
	if m.state.AddAt(item, now) && m.events.On() {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindAdded, Item: item})
	}
}

// Reserve puts the next item on its way to a getter, as of now: the first of the two steps
// of a get (see [State.Reserve]). ok is false when none can go.
func (m *Machine[T]) Reserve(now time.Time) (item T, seq uint64, ok bool) {
	return m.state.Reserve(now)
}

// Take starts every reservation up to upTo: the second step, once the getters have taken them.
func (m *Machine[T]) Take(upTo uint64) {
	for _, ok := m.state.TakeNext(upTo); ok; _, ok = m.state.TakeNext(upTo) {
	}
}

// Took reports that a getter took item at the instant at: its metrics start, measuring the
// queue latency from its add (Take said only that it was taken).
func (m *Machine[T]) Took(item T, at time.Time) {
	if !m.events.On() {
		return
	}
	if added, ok := m.state.Took(item, at); ok {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindStarted, Item: item, Since: added})
	}
}

// HandOut reserves the next item and starts it at once: a get in one step, for a getter that
// waits. It also hands out after ShutDown, until no item waits. ok is false when none can go.
func (m *Machine[T]) HandOut(now time.Time) (item T, priority int, ok bool) {
	item, seq, ok := m.state.Reserve(now)
	if !ok {
		return item, 0, false
	}
	m.Take(seq)
	m.Took(item, now)
	return item, 0, true
}

// GiveBack ends the processing of item, handed out to a getter that could not take it, as
// though it had never been handed out: it waits again, at the back, added at the instant at.
func (m *Machine[T]) GiveBack(item T, priority int, at time.Time) {
	m.state.AddAt(item, at) // being processed: now marked to go back into storage on Done
	if m.state.Done(item) && m.events.On() {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindReturned, Item: item})
	}
}

// Done ends the processing of item and reports whether it was being processed. An item added
// again during its processing waits again.
func (m *Machine[T]) Done(item T) bool {
	started, done := m.state.DoneAt(item)
	if done && m.events.On() {
		m.events.Add(metrics.Event[T]{Kind: metrics.KindFinished, Item: item, Since: started})
	}
	return done
}

// Unfinished returns, at now, how long the items in processing have been since their getters
// took them, in seconds, in all and for the longest: client-go's unfinished-work gauges.
func (m *Machine[T]) Unfinished(now time.Time) (total, longest float64) {
	return m.state.Unfinished(now)
}

// ShutDown makes the machine ignore new items and drop its delayed ones, and the items held in
// the debounce window with them (a window is a delay that adds restart), and lifts the limit of
// a grouped storage so that every waiting item can be handed out. It reports whether the
// shutdown began now.
func (m *Machine[T]) ShutDown() bool {
	if m.closed {
		return false
	}
	m.closed = true
	m.delays.Clear()
	if m.window != nil {
		m.window.Clear()
		m.state.Unhold()
	}
	m.state.LiftLimits()
	m.noteDelayed()
	m.noteDebouncing()
	return true
}

// Closed reports whether ShutDown has been called.
func (m *Machine[T]) Closed() bool { return m.closed }

// Events returns the metric events of the steps since the last call (see [metrics.Events.Take]);
// none unless [MachineConfig.Metrics] asked for them.
func (m *Machine[T]) Events() []metrics.Event[T] { return m.events.Take() }

// Forwarded returns the items that fell due since the last call, in a machine that forwards
// them (see [MachineConfig.Forward]), and forgets them. Like Events, the slice is the
// machine's buffer, good until the next step, and the owner clears it once used.
func (m *Machine[T]) Forwarded() []T {
	f := m.forwarded
	m.forwarded = m.forwarded[:0]
	return f
}

// Len returns the number of items waiting to be handed out, reserved ones included.
func (m *Machine[T]) Len() int { return m.state.Len() }

// Processing returns the number of items handed out and not yet done.
func (m *Machine[T]) Processing() int { return m.state.Processing() }

// InProcessing returns the items handed out and not yet done, in no particular order.
func (m *Machine[T]) InProcessing() []T { return m.state.InProcessing() }

// Delayed returns the number of items in the delay heap.
func (m *Machine[T]) Delayed() int { return m.delays.Len() }

// Debouncing returns the number of items held in the debounce window.
func (m *Machine[T]) Debouncing() int {
	if m.window == nil {
		return 0
	}
	return m.window.Len()
}

// Superseded reports whether item, in processing, was added again since it was handed out
// (see [State.Superseded]).
func (m *Machine[T]) Superseded(item T) bool { return m.state.Superseded(item) }

// TrackSuperseded makes the machine keep the set of superseded items, for SupersededSet.
func (m *Machine[T]) TrackSuperseded() { m.state.TrackSuperseded() }

// SupersededSet returns a copy of the superseded items and true when they changed since the
// last call (see [State.SupersededSet]).
func (m *Machine[T]) SupersededSet() (map[T]struct{}, bool) { return m.state.SupersededSet() }

// LastReservation returns the number of the latest reservation, zero before the first.
func (m *Machine[T]) LastReservation() uint64 { return m.state.LastReservation() }

// Started returns the number of the latest reservation taken: reservations up to it are in
// processing (or done), those after it still wait for their getters.
func (m *Machine[T]) Started() uint64 {
	return m.state.LastReservation() - uint64(m.state.Reservations())
}

// Unreserved returns how many waiting items no reservation holds.
func (m *Machine[T]) Unreserved() int { return m.state.Len() - m.state.Reservations() }

// Prefetch reads ahead the memory that adding items will touch, once the waiting items have
// outgrown the cache: call it with the items of a run of adds before making them.
func (m *Machine[T]) Prefetch(items []T) { m.state.Prefetch(items) }

// Outgrown reports whether the waiting items have outgrown the cache, so that Prefetch pays.
func (m *Machine[T]) Outgrown() bool { return m.state.Outgrown() }

// Dirty returns the number of items being processed that were added again since.
func (m *Machine[T]) Dirty() int { return m.state.Requeued() }

// OldestSince returns when the item processed for the longest time was reserved, and false
// when none is (see [State.OldestSince]).
func (m *Machine[T]) OldestSince() (time.Time, bool) { return m.state.OldestSince() }

// noteDebouncing reports the debounce window's size, when it changed.
func (m *Machine[T]) noteDebouncing() {
	if n := m.Debouncing(); m.events.On() && n != m.debouncing {
		m.debouncing = n
		m.events.Add(metrics.Event[T]{Kind: metrics.KindDebouncing, N: n})
	}
}

// noteDelayed reports the delay heap's size, when it changed.
func (m *Machine[T]) noteDelayed() {
	if n := m.delays.Len(); m.events.On() && n != m.delayed {
		m.delayed = n
		m.events.Add(metrics.Event[T]{Kind: metrics.KindDelayed, N: n})
	}
}
