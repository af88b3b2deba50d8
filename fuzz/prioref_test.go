package fuzz

import (
	"cmp"
	"slices"
	"time"
)

// prioRef is controller-runtime's priority queue (pkg/controller/priorityqueue, v0.25) as plain
// data, with the time as an argument: one record per item that is ready or waiting, found by
// looking through them all, and the set of items handed out. Its rules, read off
// controller-runtime's code:
//
//   - Each add takes a number from a counter; ready items go out highest priority first, then
//     lowest number first. An item added while it is ready or waiting keeps one record: the
//     higher priority (a raise takes a new number), and the earlier instant (ready now is
//     earliest of all; a waiting item made ready this way keeps its number).
//   - Waiting items that fall due become ready in the order of their instants, then as ready
//     items, each taking a new number.
//   - A handed-out item leaves its record. Added again, it gets a new one, which is not handed
//     out before Done.
//
// The zero value is not ready: create it with newPrioRef. It is not safe for concurrent use.
type prioRef[T comparable] struct {
	records []*record[T]
	locked  map[T]time.Time // items handed out, and when
	counter uint64
	fair    *fairRef[T] // groups and their turns (see priogroups_test.go); nil: none
}

// record is an item that is ready or waiting.
type record[T comparable] struct {
	item     T
	priority int
	number   uint64    // from the counter: first in, first out within a priority
	waiting  bool      // until readyAt
	readyAt  time.Time // when waiting
}

func newPrioRef[T comparable]() *prioRef[T] { return &prioRef[T]{locked: make(map[T]time.Time)} }

// handOutOrder compares ready records as they are handed out: a negative result puts a first.
func handOutOrder[T comparable](a, b *record[T]) int {
	return cmp.Or(cmp.Compare(b.priority, a.priority), cmp.Compare(a.number, b.number))
}

// dueOrder compares waiting records as they become ready: a negative result puts a first.
func dueOrder[T comparable](a, b *record[T]) int {
	return cmp.Or(a.readyAt.Compare(b.readyAt), handOutOrder(a, b))
}

// take returns the next number of the counter.
func (r *prioRef[T]) take() uint64 {
	r.counter++
	return r.counter
}

// find returns item's record, or nil.
func (r *prioRef[T]) find(item T) *record[T] {
	for _, rec := range r.records {
		if rec.item == item {
			return rec
		}
	}
	return nil
}

// refAdded is what an add changed, as the library's priority.Added tells it to the metrics:
// whether the item became ready (an add, to controller-runtime's metrics), and whether a
// ready item's priority rose, from which.
type refAdded struct {
	ready, raised bool
	from          int
	priority      int
}

// add adds item with priority, ready at once, or waiting until readyAt when waits.
func (r *prioRef[T]) add(item T, priority int, waits bool, readyAt time.Time) refAdded {
	rec := r.find(item)
	if rec == nil {
		rec = &record[T]{item: item, priority: priority, number: r.take(), waiting: waits, readyAt: readyAt}
		r.records = append(r.records, rec)
		if !waits {
			r.readied(rec)
		}
		return refAdded{ready: !waits, priority: priority}
	}
	var a refAdded
	if priority > rec.priority {
		if !rec.waiting {
			a.raised, a.from = true, rec.priority
		}
		rec.priority, rec.number = priority, r.take()
	}
	a.priority = rec.priority
	switch {
	case rec.waiting && !waits:
		rec.waiting, a.ready = false, true
		r.readied(rec)
	case rec.waiting && readyAt.Before(rec.readyAt):
		rec.readyAt = readyAt
	case a.raised:
		r.readied(rec) // at its new priority
	}
	return a
}

// due returns the waiting records due at now, in the order they become ready.
func (r *prioRef[T]) due(now time.Time) []*record[T] {
	var due []*record[T]
	for _, rec := range r.records {
		if rec.waiting && !rec.readyAt.After(now) {
			due = append(due, rec)
		}
	}
	slices.SortFunc(due, dueOrder)
	return due
}

// promote makes rec, which is due, ready behind the ready items.
func (r *prioRef[T]) promote(rec *record[T]) {
	rec.waiting, rec.number = false, r.take()
	r.readied(rec)
}

// nextDue returns the earliest instant a waiting item falls due, and false when none waits.
func (r *prioRef[T]) nextDue() (at time.Time, ok bool) {
	for _, rec := range r.records {
		if rec.waiting && (!ok || rec.readyAt.Before(at)) {
			at, ok = rec.readyAt, true
		}
	}
	return at, ok
}

// handOut removes the best ready item that is not handed out already, locks it as of now and
// returns it with its priority; ok is false when there is none.
func (r *prioRef[T]) handOut(now time.Time) (item T, priority int, ok bool) {
	if r.fair != nil {
		return r.handOutInTurn(now)
	}
	var best *record[T]
	for _, rec := range r.records {
		if _, locked := r.locked[rec.item]; !rec.waiting && !locked && (best == nil || handOutOrder(rec, best) < 0) {
			best = rec
		}
	}
	if best == nil {
		return item, 0, false
	}
	r.records = slices.DeleteFunc(r.records, func(rec *record[T]) bool { return rec == best })
	r.locked[best.item] = now
	return best.item, best.priority, true
}

// done unlocks item and reports whether it was handed out.
func (r *prioRef[T]) done(item T) bool {
	_, ok := r.locked[item]
	delete(r.locked, item)
	if ok && r.fair != nil {
		r.groupDone(item)
		if rec := r.find(item); rec != nil && !rec.waiting {
			r.readied(rec) // held back while the item was handed out
		}
	}
	return ok
}

// counts returns the number of ready items (controller-runtime's Len, which counts the ones
// held back while handed out), of waiting items, of items handed out, and of ready items held
// back.
func (r *prioRef[T]) counts() (ready, waiting, locked, held int) {
	for _, rec := range r.records {
		_, isLocked := r.locked[rec.item]
		switch {
		case rec.waiting:
			waiting++
		case isLocked:
			ready++
			held++
		default:
			ready++
		}
	}
	return ready, waiting, len(r.locked), held
}

// oldestSince returns when the item handed out the longest ago was handed out, and false when
// none is.
func (r *prioRef[T]) oldestSince() (since time.Time, ok bool) {
	for _, at := range r.locked {
		if !ok || at.Before(since) {
			since, ok = at, true
		}
	}
	return since, ok
}
