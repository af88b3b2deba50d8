// Package priority is the pure core of a priority queue with the semantics of
// controller-runtime's priorityqueue (v0.25): single-goroutine code with no goroutines,
// channels, atomics, locks, recover or clock, which takes every instant as an argument and
// returns what must happen, as package queue does for client-go's rules. [State] is the items'
// state machine; [Machine] adds the shutdown and the metric events. Package actor runs one
// Machine in a priority queue's owner goroutine.
//
// # Semantics
//
// An item is in one of three places: waiting until an instant, ready, or handed out (locked)
// until Done. Ready items go out by priority, highest first, and within a priority in the
// order of their stamps. An item is stamped when first added, when its priority is raised and
// when it falls due: raising its priority moves it behind the items already at its new
// priority, and an item that falls due joins the ready items behind those ready before it.
// Adding an item that is already ready or waiting merges the two adds: the higher priority
// wins, and the earlier instant, so an item ready now stays ready, and a waiting item added
// without a delay becomes ready at once, in the place of its first add.
//
// An item added while it is handed out becomes a separate ready (or waiting) entry that is not
// handed out before Done: a worker never processes an item twice at once.
//
// These are controller-runtime's rules, which differ from client-go's: there, a delayed add
// and an add of the same item are independent, and each may lead to a processing.
package priority

import (
	"time"

	"github.com/actorqueue/workqueue/delay"
	"github.com/actorqueue/workqueue/queue"
)

// entry is an item that is ready or waiting.
type entry[T comparable] struct {
	item     T
	priority int
	order    uint64    // when it became ready, or was added, or raised: FIFO within a priority
	readyAt  time.Time // zero once ready
	pos      int       // position in its heap; -1 when ready but held back (see State.blocked)
	group    string    // its group, in a grouped state (see NewGrouped)
	bounce   *bounce   // while it waits out a debounce window (see State.Hold); nil otherwise
}

// State is a priority queue's state machine. Create it with [New]. It is not safe for
// concurrent use: one goroutine at a time owns it.
type State[T comparable] struct {
	entries map[T]*entry[T] // every ready or waiting item
	peak    int             // the most entries since entries was made
	ready   entries[T]      // ready items that may be handed out, best first
	blocked map[T]*entry[T] // ready items held back while the same item is handed out
	waiting entries[T]      // waiting items, earliest first
	locked  map[T]time.Time // items handed out, Done not yet called, with when
	order   uint64          // the next order number
	fair    *fair[T]        // the ready items instead of ready, in a grouped state (see NewGrouped)

	debounce delay.Debounce // the rule of Hold; its zero value holds nothing
	holding  int            // waiting entries that wait out a debounce window

	// The items handed out whose entry is ready or waits out a debounce window (see
	// Superseded), kept once TrackSuperseded is called, for a shell that publishes them.
	superseded queue.SupersededSet[T]
}

// New returns an empty priority queue state.
func New[T comparable]() *State[T] {
	return &State[T]{
		entries: make(map[T]*entry[T]),
		ready:   entries[T]{less: readyFirst[T]},
		blocked: make(map[T]*entry[T]),
		waiting: entries[T]{less: dueFirst[T]},
		locked:  make(map[T]time.Time),
	}
}

// readyFirst orders ready items: higher priority first, then in order.
func readyFirst[T comparable](a, b *entry[T]) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	return a.order < b.order
}

// dueFirst orders waiting items: earliest instant first, then as ready items.
func dueFirst[T comparable](a, b *entry[T]) bool {
	if !a.readyAt.Equal(b.readyAt) {
		return a.readyAt.Before(b.readyAt)
	}
	return readyFirst(a, b)
}

// Added tells what an Add or a Hold changed, for the metrics.
type Added struct {
	// Absorbed is set when a Hold restarted the debounce window its item was waiting out.
	Absorbed bool
	// Ready is set when the item became ready: client-go's metrics count an add.
	Ready bool
	// Raised is set when an item that was already ready got a higher priority: its depth moves
	// from From to Priority.
	Raised bool
	// From is the priority before a raise.
	From int
	// Priority is the item's priority after the add.
	Priority int
}

// Add adds item with priority, ready at readyAt, or at once when readyAt is zero.
func (s *State[T]) Add(item T, priority int, readyAt time.Time) Added {
	e, ok := s.entries[item]
	if !ok {
		var group string
		if s.fair != nil {
			group = s.fair.groupOf(item) // may panic: nothing has changed yet
		}
		e = &entry[T]{item: item, priority: priority, order: s.next(), readyAt: readyAt, group: group}
		s.entries[item] = e
		s.peak = max(s.peak, len(s.entries))
		if readyAt.IsZero() {
			s.makeReady(e)
			return Added{Ready: true, Priority: priority}
		}
		s.waiting.push(e)
		return Added{Priority: priority}
	}
	wasReady := e.readyAt.IsZero()
	var a Added
	if priority > e.priority {
		if wasReady {
			a.Raised, a.From = true, e.priority
		}
		if s.fair != nil && wasReady && e.pos >= 0 {
			s.fair.remove(e) // pushed back below, at its new priority
			e.priority, e.order = priority, s.next()
			s.fair.push(e)
		} else {
			e.priority, e.order = priority, s.next()
		}
	}
	a.Priority = e.priority
	switch {
	case wasReady:
		s.reorderReady(e)
	case readyAt.IsZero():
		s.waiting.remove(e)
		s.unbounce(e) // this add covers those the window held it for
		e.readyAt = time.Time{}
		s.makeReady(e)
		a.Ready = true
	default:
		if e.bounce != nil && (e.bounce.delayed.IsZero() || readyAt.Before(e.bounce.delayed)) {
			e.bounce.delayed = readyAt
		}
		if readyAt.Before(e.readyAt) {
			e.readyAt = readyAt
		}
		s.waiting.fix(e.pos)
	}
	return a
}

// next returns the next order number.
func (s *State[T]) next() uint64 {
	s.order++
	return s.order
}

// makeReady puts a ready entry among the ready items, or holds it back while the item is
// handed out.
func (s *State[T]) makeReady(e *entry[T]) {
	if _, handedOut := s.locked[e.item]; handedOut {
		e.pos = -1
		s.blocked[e.item] = e
		s.superseded.Add(e.item)
		return
	}
	s.push(e)
}

// push puts a ready entry among the ready items.
func (s *State[T]) push(e *entry[T]) {
	if s.fair != nil {
		s.fair.push(e)
		return
	}
	s.ready.push(e)
}

// reorderReady restores a ready entry's place after its order changed.
func (s *State[T]) reorderReady(e *entry[T]) {
	if e.pos >= 0 && s.fair == nil { // a grouped state moved it already, if it was raised
		s.ready.fix(e.pos)
	}
}

// PromoteDue makes the earliest waiting item ready if it is due at now, and returns it with its
// priority. Call it until ok is false to promote everything due. A promoted item joins the
// ready items behind those already ready.
func (s *State[T]) PromoteDue(now time.Time) (item T, priority int, ok bool) {
	if s.waiting.len() == 0 || s.waiting.top().readyAt.After(now) {
		return item, 0, false
	}
	e := s.waiting.top()
	s.waiting.remove(e)
	s.unbounce(e)
	e.readyAt, e.order = time.Time{}, s.next()
	s.makeReady(e)
	return e.item, e.priority, true
}

// NextDue returns the instant the earliest waiting item falls due, and false when none waits.
func (s *State[T]) NextDue() (time.Time, bool) {
	if s.waiting.len() == 0 {
		return time.Time{}, false
	}
	return s.waiting.top().readyAt, true
}

// HandOut removes the best ready item, locks it, as of now, until Done, and returns it with its
// priority. It returns ok == false when no ready item can be handed out. In a grouped state the
// best item is the next group's turn at the highest priority, skipping the groups at their limit
// (see NewGrouped).
func (s *State[T]) HandOut(now time.Time) (item T, priority int, ok bool) {
	var e *entry[T]
	switch {
	case s.fair != nil:
		if e, ok = s.fair.pop(); !ok {
			return item, 0, false
		}
	case s.ready.len() == 0:
		return item, 0, false
	default:
		e = s.ready.top()
		s.ready.remove(e)
	}
	delete(s.entries, e.item)
	if len(s.entries) == 0 && s.peak > keep {
		// A Go map never shrinks: once a burst has passed, a new one lets its memory go.
		s.entries, s.peak = make(map[T]*entry[T]), 0
	}
	s.locked[e.item] = now
	return e.item, e.priority, true
}

// Done unlocks item, so that a ready entry of the same item may be handed out, and reports
// whether it was handed out.
func (s *State[T]) Done(item T) bool {
	if _, ok := s.locked[item]; !ok {
		return false
	}
	delete(s.locked, item)
	s.superseded.Remove(item)
	if s.fair != nil {
		s.fair.done(item)
	}
	if e, ok := s.blocked[item]; ok {
		delete(s.blocked, item)
		s.push(e)
	}
	return true
}

// Len returns the number of ready items, held-back ones included (those of an item handed out,
// and those of a group at its limit): controller-runtime's Len.
func (s *State[T]) Len() int {
	if s.fair != nil {
		return s.fair.n + len(s.blocked)
	}
	return s.ready.len() + len(s.blocked)
}

// Waiting returns the number of items waiting to become ready, those waiting out a debounce
// window included.
func (s *State[T]) Waiting() int { return s.waiting.len() }

// Processing returns the number of items handed out and not yet done.
func (s *State[T]) Processing() int { return len(s.locked) }

// Blocked returns the number of ready items held back because the same item is handed out.
func (s *State[T]) Blocked() int { return len(s.blocked) }

// OldestSince returns when the item handed out the longest ago was handed out, and false when
// none is.
func (s *State[T]) OldestSince() (time.Time, bool) {
	var oldest time.Time
	for _, since := range s.locked {
		if oldest.IsZero() || since.Before(oldest) {
			oldest = since
		}
	}
	return oldest, !oldest.IsZero()
}

// InProcessing returns the items handed out and not yet done, in no particular order.
func (s *State[T]) InProcessing() []T {
	items := make([]T, 0, len(s.locked))
	for item := range s.locked {
		items = append(items, item)
	}
	return items
}
