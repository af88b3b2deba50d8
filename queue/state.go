// Package queue is the pure core of a workqueue with client-go's rules: which items wait,
// which are being processed, which were added again while being processed, which wait for an
// instant, and whether the queue is shutting down. It is single-goroutine code with no
// goroutines, channels, atomics, locks, recover or clock: every instant is an argument, and
// what must happen about a step is returned, not done, as etcd raft's RawNode returns Ready.
// Package actor runs one [Machine] per queue in the queue's owner goroutine and carries out
// what it returns; package queue/priority is the same for controller-runtime's priority queue.
//
// [State] is the items' state machine; [Machine] adds the delay heap (package delay), the
// shutdown and the metric events; [Schedule] says when the owner wakes for the metrics' ticks
// and client-go's heartbeat. None of them is safe for concurrent use.
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
//
// # Code of others
//
// A custom [Storage] and the group function of a [Grouped] storage are the only code of
// others the core runs. A storage that panics in Push or Touch leaves the state as it was; the
// group function must not panic (the owner hands in one that recovers).
package queue

import (
	"time"

	"github.com/actorqueue/workqueue/internal/table"
)

// State is the state machine of one queue. Create it with [New]. It is not safe for concurrent
// use: one goroutine at a time owns it.
//
// Items waiting and items being processed are kept in two maps, as client-go keeps its dirty
// and processing sets: the waiting map grows with the backlog, while the processing map stays
// as small as the number of workers, so the calls made for every item being worked on stay in
// cache.
//
// With the built-in FIFO, taking an item does not touch the waiting map, which has outgrown the
// cache under a backlog. Each push into the FIFO gives the item the next ticket (1, 2, 3, ...),
// kept in its entry, and the FIFO hands items out in the order of their tickets: once t items
// have been taken, an entry whose ticket is at most t is stale, and its item no longer waits.
// Stale entries are let go in bulk: by a sweep when the map is full, in place or as it grows
// (see makeRoom), and when the items still waiting fill at most 1/32 of it. A custom storage
// may hand items out in any order, so its entries go as their items are taken.
type State[T comparable] struct {
	storage    Storage[T]
	custom     bool                 // storage is not a FIFO: it may reorder, and wants Touch calls
	waiting    table.Map[T, uint32] // items in storage or reserved, with their tickets (FIFO only)
	pushed     uint32               // tickets given so far, modulo 2³²: the FIFO's pushes
	taken      uint32               // tickets taken so far, modulo 2³²
	processing map[T]inFlight       // items taken and not done
	reserved   FIFO[reservation[T]] // reserved items, oldest reservation first
	nextSeq    uint64               // the reservation number Reserve will give next; the first is 1
	readded    map[T]struct{}       // reserved items of a custom storage added again since
	grouped    *Grouped[T]          // storage, when it is grouped: told of Dones, may hold items

	// The items in processing that were added again since they were handed out (see
	// Superseded), kept once TrackSuperseded is called, for a shell that publishes them.
	superseded SupersededSet[T]

	// The instants of adds and starts, kept for the metrics once TrackInstants is called: what
	// client-go's metrics keep in maps of their own. The built-in FIFO keeps each stored item's
	// add in a ring beside it, in the same order, so that a take reads the ring's next entry and
	// touches no map; a custom storage, which pops in an order of its own, keeps them in a map.
	instants bool
	addedAt  FIFO[time.Duration] // built-in FIFO: the add of each stored item, since origin
	addedBy  map[T]time.Time     // custom storage: the add of each stored or re-added reserved item

	// origin is the instant the others count from (see rel): given to TrackInstants, or else the
	// first reservation's. An item in processing is a map value, and a reservation a ring entry,
	// copied at every step: 8-byte offsets keep them small.
	origin time.Time
}

// reservation is a reserved item, the instant it was reserved, and, when the state keeps
// instants, the instant it was added (offsets from the origin, see rel).
type reservation[T any] struct {
	item  T
	at    offset
	added offset
}

// inFlight is what the machine knows of an item being processed, its instants as offsets from
// the origin (see rel). The instants after since are kept only once TrackInstants is called.
type inFlight struct {
	since   offset // when it was reserved: the start of its processing, or a little before
	added   offset // when it was added, until its getter takes it (see Took)
	started offset // when its getter took it; none until then
	readded offset // when it was added again, once again is set
	again   bool   // added again since: goes back into storage on Done
	held    bool   // added again since, and that add waits out a debounce window (see Hold)
}

// New returns an empty machine that keeps waiting items in storage, or in a [FIFO] when storage
// is nil.
func New[T comparable](storage Storage[T]) *State[T] {
	if storage == nil {
		storage = new(FIFO[T])
	}
	_, fifo := storage.(*FIFO[T])
	grouped, _ := storage.(*Grouped[T])
	return &State[T]{
		storage:    storage,
		grouped:    grouped,
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
func (s *State[T]) Add(item T) bool { return s.AddAt(item, time.Time{}) }

// AddAt is Add at the instant at, which the state keeps, if it keeps instants, when the item
// becomes newly pending: as client-go's metrics keep the first add of an item not yet handed
// out, and the first add of an item being processed.
func (s *State[T]) AddAt(item T, at time.Time) bool {
	if f, ok := s.processing[item]; ok {
		if f.again {
			return false // already due again
		}
		f.again, f.readded = true, s.rel(at)
		s.processing[item] = f
		s.superseded.Add(item)
		return true
	}
	if !s.custom {
		// One lookup finds the item or makes its entry: the FIFO's Push cannot fail.
		ticket, waits := s.entry(item)
		if waits {
			return false
		}
		s.push(item, ticket, at)
		return true
	}
	if s.waiting.Has(item) {
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
		s.keepAdd(item, at)
		return true
	}
	s.storage.Push(item)
	s.waiting.Put(item, 0)
	s.keepAdd(item, at)
	return true
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
	return s.isWaiting(item)
}

// isWaiting reports whether item is in storage or reserved.
func (s *State[T]) isWaiting(item T) bool {
	ticket, ok := s.waiting.Get(item)
	return ok && (s.custom || s.live(ticket))
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
// number. It returns ok == false when nothing waits in storage, or when a [Grouped] storage
// holds every item it has (their groups are at their limit): a Done may then let one go.
func (s *State[T]) Reserve(now time.Time) (item T, seq uint64, ok bool) {
	if s.storage.Len() == 0 || s.grouped != nil && !s.grouped.Eligible() {
		return item, 0, false
	}
	item = s.storage.Pop()
	if s.custom && item == item && !s.isWaiting(item) { // a NaN is never found: trust the storage
		panic("workqueue: the queue's storage popped an item it was not holding")
	}
	r := reservation[T]{item: item, at: s.rel(now), added: none}
	switch {
	case !s.instants:
	case s.custom:
		r.added = s.rel(s.addedBy[item])
		delete(s.addedBy, item)
	default:
		r.added = offset(s.addedAt.Pop())
	}
	s.reserved.Push(r)
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
	f := inFlight{since: r.at, added: r.added, started: none, readded: none}
	if s.custom {
		s.waiting.Delete(r.item)
		_, f.again = s.readded[r.item]
		delete(s.readded, r.item)
		if f.again && s.instants {
			f.readded = s.rel(s.addedBy[r.item])
			delete(s.addedBy, r.item)
		}
		if f.again {
			s.superseded.Add(r.item)
		}
	} else {
		s.taken++
		s.letGo()
	}
	s.processing[r.item] = f
	return r.item, true
}

// Done ends the processing of item and reports whether it was being processed. An item added
// again during its processing goes back into storage. Done of an item that is not being
// processed (never handed out, or already done) changes nothing.
//
// If the storage panics in Push, the item stays in processing, so Done may be called again.
func (s *State[T]) Done(item T) bool {
	_, ok := s.DoneAt(item)
	return ok
}

// DoneAt is Done that also returns when the item's getter took it: zero if it did not yet say
// (see Took), or the state keeps no instants.
func (s *State[T]) DoneAt(item T) (started time.Time, ok bool) {
	f, ok := s.processing[item]
	if !ok {
		return started, false
	}
	if f.again {
		s.requeue(item, s.abs(f.readded))
	}
	delete(s.processing, item)
	if f.again || f.held { // only then can it be in the set: no lookup on every Done
		s.superseded.Remove(item)
	}
	if s.grouped != nil {
		s.grouped.Finished(item) // after requeue, which puts the item back into its own group
	}
	return s.abs(f.started), true
}

// LiftLimits ends for good the limit of a [Grouped] storage on the items of one group in
// processing, so that every waiting item can be handed out: for a queue shutting down.
func (s *State[T]) LiftLimits() {
	if s.grouped != nil {
		s.grouped.Lift()
	}
}

// requeue puts item, whose processing has ended, back into storage; it was added again at the
// instant at.
func (s *State[T]) requeue(item T, at time.Time) {
	if s.custom {
		s.storage.Push(item)
		s.waiting.Put(item, 0)
		s.keepAdd(item, at)
		return
	}
	ticket, _ := s.entry(item)
	s.push(item, ticket, at)
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
		if since := s.abs(f.since); oldest.IsZero() || since.Before(oldest) {
			oldest = since
		}
	}
	return oldest, !oldest.IsZero()
}
