// Package queue is the state machine behind every workqueue: which items wait, which are being
// processed, and which were added again while being processed. It is plain single-goroutine
// code: no goroutines, no locks, no clock. The actor package runs one State per queue inside
// the queue's owner goroutine.
//
// # Contract
//
// The machine keeps client-go's promises. It is fair: items are handed out in the order the
// [Storage] gives them (first in, first out for [FIFO]). It is stingy: an item added several
// times before it is handed out is handed out once, and an item is never handed out again
// while it is being processed; added during processing, it goes back into storage when
// [State.Done] ends that processing.
//
// # Getting an item in two steps
//
// Handing an item to a getter takes two steps, so that the owner can put items on their way
// to getters before any getter asks. [State.Reserve] picks the next item and gives it a
// reservation number (1, 2, 3, ... in order); [State.TakeNext] later starts it. A reserved
// item still counts as waiting: it is in [State.Len], and adding it again is a no-op, exactly
// as for an item in storage. Taking is by prefix: once a getter has taken reservation n, every
// reservation up to n has been taken, because getters receive reservations in order.
package queue

import "github.com/actorqueue/workqueue/internal/mutant"

// status is where an item is in the machine. An item absent from the map is unknown.
type status uint8

const (
	absent     status = iota
	queued            // in storage
	reserved          // popped from storage for a getter, not yet taken: still counts as queued
	processing        // taken by a getter, Done not yet called
	requeue           // processing, and added again since: goes back into storage on Done
)

// State is the state machine of one queue. Create it with [New]. It is not safe for concurrent
// use: one goroutine at a time owns it.
type State[T comparable] struct {
	storage    Storage[T]
	status     map[T]status // every item the machine knows, with where it is
	reserved   FIFO[T]      // reserved items, oldest reservation first
	nextSeq    uint64       // the reservation number Reserve will give next; the first is 1
	processing int          // items in status processing or requeue
}

// New returns an empty machine that keeps waiting items in storage, or in a [FIFO] when storage
// is nil.
func New[T comparable](storage Storage[T]) *State[T] {
	if storage == nil {
		storage = new(FIFO[T])
	}
	return &State[T]{storage: storage, status: make(map[T]status), nextSeq: 1}
}

// Add marks item as needing processing. It reports whether the item became newly pending,
// which is when client-go counts an add in its metrics: true for an unknown item (now queued)
// and for an item being processed (now to be processed again after Done); false when the item
// is already waiting or already due to be processed again.
//
// If the storage panics in Push or Touch, the machine is left as it was.
func (s *State[T]) Add(item T) bool {
	switch s.status[item] {
	case absent:
		s.storage.Push(item)
		s.status[item] = queued
		return true
	case queued:
		if mutant.Active(mutant.NoDedup) {
			s.storage.Push(item)
			return true
		}
		s.storage.Touch(item)
	case processing:
		if mutant.Active(mutant.LostReAdd) {
			return true
		}
		s.status[item] = requeue
		return true
	}
	return false
}

// Reserve picks the next item to hand out and returns it with its reservation number. It
// returns ok == false when nothing waits in storage.
func (s *State[T]) Reserve() (item T, seq uint64, ok bool) {
	if s.storage.Len() == 0 {
		return item, 0, false
	}
	item = s.storage.Pop()
	if s.status[item] != queued && !mutant.Active(mutant.NoDedup) && !mutant.Active(mutant.DoubleRequeue) {
		panic("workqueue: the queue's storage popped an item it was not holding")
	}
	s.status[item] = reserved
	s.reserved.Push(item)
	seq = s.nextSeq
	s.nextSeq++
	return item, seq, true
}

// TakeNext starts processing the oldest reserved item if its reservation number is at most
// upTo, and returns it. Call it until ok is false to take every reservation up to upTo.
func (s *State[T]) TakeNext(upTo uint64) (item T, ok bool) {
	if s.reserved.Len() == 0 || s.nextSeq-uint64(s.reserved.Len()) > upTo {
		return item, false
	}
	item = s.reserved.Pop()
	s.status[item] = processing
	s.processing++
	return item, true
}

// Done ends the processing of item and reports whether it was being processed. An item added
// again during its processing goes back into storage. Done of an item that is not being
// processed (never handed out, or already done) changes nothing.
//
// If the storage panics in Push, the item stays in processing, so Done may be called again.
func (s *State[T]) Done(item T) bool {
	switch s.status[item] {
	case processing:
		delete(s.status, item)
	case requeue:
		s.storage.Push(item)
		if mutant.Active(mutant.DoubleRequeue) {
			s.storage.Push(item)
		}
		s.status[item] = queued
	default:
		return false
	}
	s.processing--
	return true
}

// Len returns the number of items waiting to be handed out, reserved ones included: client-go's
// queue length.
func (s *State[T]) Len() int { return s.storage.Len() + s.reserved.Len() }

// Reserved returns the number of reserved items not yet taken.
func (s *State[T]) Reserved() int { return s.reserved.Len() }

// Processing returns the number of items handed out and not yet done.
func (s *State[T]) Processing() int { return s.processing }
