package fuzz

import (
	"cmp"
	"slices"
	"time"

	"github.com/actorqueue/workqueue"
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
//   - With a debounce window (see hold), a plain add of an item that is not ready makes its
//     record wait until Window after the add, at most MaxWait after the first such add, and
//     never later than a delayed add asked for; a plain add of a record waiting out its window
//     starts it again. Any add that makes the record ready ends the window, as does its
//     falling due. An item handed out whose record is ready, or waits out a window, is
//     superseded.
//
// The zero value is not ready: create it with newPrioRef. It is not safe for concurrent use.
type prioRef[T comparable] struct {
	records []*record[T]
	locked  map[T]time.Time // items handed out, and when
	counter uint64
	fair    *fairRef[T] // groups and their turns (see priogroups_test.go); nil: none

	debounce workqueue.Debounce
}

// record is an item that is ready or waiting.
type record[T comparable] struct {
	item     T
	priority int
	number   uint64    // from the counter: first in, first out within a priority
	waiting  bool      // until readyAt
	readyAt  time.Time // when waiting
	bounce   *refBounce
}

// refBounce is a record waiting out a debounce window: since its first plain add, and the
// instant a delayed add asked for (zero: none).
type refBounce struct{ first, delayed time.Time }

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
	absorbed      bool // a plain add restarted the debounce window
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
	if rec.waiting && waits && rec.bounce != nil && (rec.bounce.delayed.IsZero() || readyAt.Before(rec.bounce.delayed)) {
		rec.bounce.delayed = readyAt
	}
	switch {
	case rec.waiting && !waits:
		rec.waiting, a.ready, rec.bounce = false, true, nil
		r.readied(rec)
	case rec.waiting && readyAt.Before(rec.readyAt):
		rec.readyAt = readyAt
	case a.raised:
		r.readied(rec) // at its new priority
	}
	return a
}

// hold is a plain add of item with priority at now, held in the debounce window: ready at once
// without a window, or for a record ready already (merged as add merges it).
func (r *prioRef[T]) hold(item T, priority int, now time.Time) refAdded {
	rec := r.find(item)
	if r.debounce.Window <= 0 || rec != nil && !rec.waiting {
		return r.add(item, priority, false, time.Time{})
	}
	if rec == nil {
		a := r.add(item, priority, true, now.Add(r.debounce.Window))
		r.find(item).bounce = &refBounce{first: now}
		return a
	}
	a := refAdded{priority: max(priority, rec.priority)}
	if priority > rec.priority {
		rec.priority, rec.number = priority, r.take()
	}
	if rec.bounce == nil {
		rec.bounce = &refBounce{first: now, delayed: rec.readyAt}
	} else {
		a.absorbed = true
	}
	wait := r.debounce.Window
	if left := r.debounce.MaxWait - now.Sub(rec.bounce.first); r.debounce.MaxWait > 0 && left < wait {
		wait = max(left, 0)
	}
	rec.readyAt = now.Add(wait)
	if d := rec.bounce.delayed; !d.IsZero() && d.Before(rec.readyAt) {
		rec.readyAt = d
	}
	return a
}

// superseded reports whether item is handed out and its record is ready or waits out a window.
func (r *prioRef[T]) superseded(item T) bool {
	if _, locked := r.locked[item]; !locked {
		return false
	}
	rec := r.find(item)
	return rec != nil && (!rec.waiting || rec.bounce != nil)
}

// debouncing returns the number of records waiting out a debounce window.
func (r *prioRef[T]) debouncing() int {
	n := 0
	for _, rec := range r.records {
		if rec.bounce != nil {
			n++
		}
	}
	return n
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
	rec.waiting, rec.number, rec.bounce = false, r.take(), nil
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
