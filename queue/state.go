// Package queue is the state machine behind every workqueue: which items wait, which are being
// processed, and which were added again while being processed. It is plain single-goroutine
// code: no goroutines, no locks, no clock (the instant of a reservation is an argument). The
// actor package runs one State per queue inside the queue's owner goroutine.
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
//
// A custom storage is reserved from only for a getter that waits, and its Pop is for all to
// see: client-go pops inside Get, so an item popped is one being processed. Adding a reserved
// item of a custom storage again is therefore an add during processing: the item goes back
// into storage once the getter that takes it is done.
//
// A getter that takes a reservation tells the owner through the same ordered channel as every
// other command, so the machine always sees a take in its place among the adds and dones.
package queue

import (
	"time"

	"github.com/actorqueue/workqueue/internal/mutant"
	"github.com/actorqueue/workqueue/internal/table"
)

// State is the state machine of one queue. Create it with [New]. It is not safe for concurrent
// use: one goroutine at a time owns it.
//
// Items waiting and items being processed are kept in two maps, as client-go keeps its dirty
// and processing sets: the waiting map grows with the backlog, while the processing map stays
// as small as the number of workers, so the calls made for every item being worked on stay in
// cache.
type State[T comparable] struct {
	storage    Storage[T]
	custom     bool                   // storage is not a FIFO: it may reorder, and wants Touch calls
	waiting    table.Map[T, struct{}] // items in storage or reserved
	processing map[T]inFlight         // items taken and not done
	reserved   FIFO[reservation[T]]   // reserved items, oldest reservation first
	nextSeq    uint64                 // the reservation number Reserve will give next; the first is 1
	readded    map[T]struct{}         // reserved items of a custom storage added again since
	lookahead  []T                    // room for the items PrefetchReserved reads ahead for
}

// reservation is a reserved item and the instant it was reserved.
type reservation[T any] struct {
	item T
	at   time.Time
}

// inFlight is what the machine knows of an item being processed.
type inFlight struct {
	since time.Time // when it was reserved: the start of its processing, or a little before
	again bool      // added again since: goes back into storage on Done
}

// New returns an empty machine that keeps waiting items in storage, or in a [FIFO] when storage
// is nil.
func New[T comparable](storage Storage[T]) *State[T] {
	if storage == nil {
		storage = new(FIFO[T])
	}
	_, fifo := storage.(*FIFO[T])
	return &State[T]{
		storage:    storage,
		custom:     !fifo,
		processing: make(map[T]inFlight),
		nextSeq:    1,
	}
}

// Add marks item as needing processing. It reports whether the item became newly pending,
// which is when client-go counts an add in its metrics: true for an unknown item (now queued)
// and for an item being processed (now to be processed again after Done); false when the item
// is already waiting or already due again. A custom storage is touched when an item it holds
// is added again.
//
// If the storage panics in Push or Touch, the machine is left as it was.
func (s *State[T]) Add(item T) bool {
	if f, ok := s.processing[item]; ok {
		if f.again {
			return false // already due again
		}
		if !mutant.Active(mutant.LostReAdd) {
			f.again = true
			s.processing[item] = f
		}
		return true
	}
	if !s.custom {
		// One lookup finds the item or makes its entry: the FIFO's Push cannot fail.
		if _, found := s.waiting.Ref(item); found && !mutant.Active(mutant.NoDedup) {
			return false
		}
		s.storage.Push(item)
		return true
	}
	if s.waiting.Has(item) && !mutant.Active(mutant.NoDedup) {
		if !s.isReserved(item) {
			s.storage.Touch(item)
			return false
		}
		if _, again := s.readded[item]; again {
			return false
		}
		if s.readded == nil {
			s.readded = make(map[T]struct{})
		}
		s.readded[item] = struct{}{}
		return true
	}
	s.storage.Push(item)
	s.waiting.Put(item, struct{}{})
	return true
}

// Outgrown reports whether the waiting items have outgrown the cache, so that reading ahead
// with [State.Prefetch] and [State.PrefetchReserved] pays.
func (s *State[T]) Outgrown() bool { return s.waiting.Outgrown() }

// Prefetch reads ahead the memory that adding items will touch, once the waiting items have
// outgrown the cache (see [table.Map.Prefetch]): call it with the items of a run of adds
// before making them.
func (s *State[T]) Prefetch(items []T) { s.waiting.Prefetch(items) }

// PrefetchReserved reads ahead the memory that taking the latest n reservations will touch,
// once the waiting items have outgrown the cache: call it after a run of n reservations.
func (s *State[T]) PrefetchReserved(n int) {
	if !s.Outgrown() {
		return
	}
	items := s.lookahead[:0]
	for i := max(s.reserved.Len()-n, 0); i < s.reserved.Len(); i++ {
		items = append(items, s.reserved.At(i).item)
	}
	s.waiting.Prefetch(items)
	clear(items) // hold no item past its processing
	s.lookahead = items
}

// Pending reports whether item is waiting, or being processed and due to wait again: whether
// [State.Add] would leave it as it is (and report false).
func (s *State[T]) Pending(item T) bool {
	if f, ok := s.processing[item]; ok {
		return f.again
	}
	if s.custom && s.isReserved(item) {
		_, again := s.readded[item]
		return again
	}
	return s.waiting.Has(item)
}

// isWaiting reports whether item is in storage or reserved.
func (s *State[T]) isWaiting(item T) bool {
	return s.waiting.Has(item)
}

// isReserved reports whether item is reserved. It looks through the reservations, which only a
// custom storage needs, on a repeated add; a custom storage has few reservations, since it is
// reserved from only for getters that wait.
func (s *State[T]) isReserved(item T) bool {
	for i := range s.reserved.Len() {
		if s.reserved.At(i).item == item {
			return true
		}
	}
	return false
}

// Reserve picks the next item to hand out, as of now, and returns it with its reservation
// number. It returns ok == false when nothing waits in storage.
func (s *State[T]) Reserve(now time.Time) (item T, seq uint64, ok bool) {
	if s.storage.Len() == 0 {
		return item, 0, false
	}
	item = s.storage.Pop()
	if s.custom && item == item && !s.isWaiting(item) { // a NaN is never found: trust the storage
		panic("workqueue: the queue's storage popped an item it was not holding")
	}
	s.reserved.Push(reservation[T]{item: item, at: now})
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
	r := s.reserved.Pop()
	s.waiting.Delete(r.item)
	_, again := s.readded[r.item]
	delete(s.readded, r.item)
	s.processing[r.item] = inFlight{since: r.at, again: again}
	return r.item, true
}

// Done ends the processing of item and reports whether it was being processed. An item added
// again during its processing goes back into storage. Done of an item that is not being
// processed (never handed out, or already done) changes nothing.
//
// If the storage panics in Push, the item stays in processing, so Done may be called again.
func (s *State[T]) Done(item T) bool {
	f, ok := s.processing[item]
	if !ok {
		return false
	}
	if f.again {
		s.storage.Push(item)
		if mutant.Active(mutant.DoubleRequeue) {
			s.storage.Push(item)
		}
		s.waiting.Put(item, struct{}{})
	}
	delete(s.processing, item)
	return true
}

// Len returns the number of items waiting to be handed out, reserved ones included: client-go's
// queue length.
func (s *State[T]) Len() int { return s.storage.Len() + s.reserved.Len() }

// LastReservation returns the number of the latest reservation, zero before the first.
func (s *State[T]) LastReservation() uint64 { return s.nextSeq - 1 }

// Reservations returns the number of reserved items not yet taken.
func (s *State[T]) Reservations() int { return s.reserved.Len() }

// Processing returns the number of items handed out and not yet done.
func (s *State[T]) Processing() int { return len(s.processing) }

// InProcessing returns the items handed out and not yet done, in no particular order.
func (s *State[T]) InProcessing() []T {
	items := make([]T, 0, len(s.processing))
	for item := range s.processing {
		items = append(items, item)
	}
	return items
}

// Requeued returns the number of items being processed that were added again since.
func (s *State[T]) Requeued() int {
	n := 0
	for _, f := range s.processing {
		if f.again {
			n++
		}
	}
	return n
}

// OldestSince returns when the item processed for the longest time was reserved, and false
// when no item is being processed. Measured from the reservation, an item's processing time
// includes the moment it waited between reservation and take: nothing when a getter was
// waiting for it, the wait for a free getter otherwise.
func (s *State[T]) OldestSince() (time.Time, bool) {
	var oldest time.Time
	for _, f := range s.processing {
		if oldest.IsZero() || f.since.Before(oldest) {
			oldest = f.since
		}
	}
	return oldest, !oldest.IsZero()
}
