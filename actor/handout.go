package actor

import (
	"slices"
	"sync/atomic"
	"time"
)

// refill hands items out at the end of a turn: into ready when reading ahead, else to the
// getters waiting in the owner, oldest first, telling those left once nothing more can go.
func (q *Queue[T]) refill() {
	if q.ready != nil {
		q.fill()
		return
	}
	for len(q.getters) > 0 {
		r, ok := q.handOut()
		if !ok {
			break
		}
		q.answer(q.getters[0], r)
		q.getters = slices.Delete(q.getters, 0, 1)
	}
	if q.core.Closed() {
		for _, getter := range q.getters {
			q.answer(getter, result[T]{shutdown: true})
		}
		q.getters = q.getters[:0]
	}
}

// handOut hands the next item out, as one getter's answer; ok is false when none can go. A
// getter that must raise a panic (the storage's, a metric's, a kept one) gets no item, so that
// none is left in processing with nobody to call Done.
func (q *Queue[T]) handOut() (r result[T], ok bool) {
	defer func() {
		if p := recover(); p != nil {
			r, ok = result[T]{fault: p}, true
		}
	}()
	at := q.instant()
	item, priority, ok := q.core.HandOut(at)
	if !ok {
		return r, false
	}
	return q.started(item, priority, at), true
}

// started is the answer to the getter of item, started at at: the item, or a panic of its
// metrics (or a kept one), the item then going back to the queue.
func (q *Queue[T]) started(item T, priority int, at time.Time) result[T] {
	fault := q.record(at)
	if fault == nil {
		fault, q.stash = q.stash, nil
	}
	if fault == nil {
		return result[T]{item: item, n: priority}
	}
	q.core.GiveBack(item, priority, at)
	if len(q.drainers) > 0 && q.idle() {
		q.releaseDrainers()
	}
	q.keep(q.record(time.Time{}))
	return result[T]{fault: fault}
}

// getNow answers a getter of a queue shutting down at once: with the oldest item still waiting,
// those in ready first, or shutdown == true.
func (q *Queue[T]) getNow(at time.Time) result[T] {
	if q.ready != nil {
		select {
		case h := <-q.ready:
			raiseTo(&q.taken, h.seq) // for the commands still to be stamped
			q.fifo.Take(h.seq)
			q.fifo.Took(h.item, at)
			return q.started(h.item, 0, at)
		default:
		}
		// Every reservation has left ready, for a getter whose take is on its way: take them all,
		// so that no later command counts one as waiting.
		last := q.fifo.LastReservation()
		raiseTo(&q.taken, last)
		q.fifo.Take(last)
	}
	if r, ok := q.handOut(); ok {
		return r
	}
	return result[T]{shutdown: true}
}

// fill puts reserved items in ready, as many as it has room for, and says in overflow whether
// more wait: takes tell the owner nothing, so the getter whose take empties ready nudges it
// (see take). Neither may miss the other: the owner writes overflow, then reads the watermark;
// a getter raises the watermark, then reads overflow. Atomic operations happen in one order,
// so if the getter misses the write, the owner's read follows the raise and counts the take.
func (q *Queue[T]) fill() {
	if q.core.Closed() {
		setIfChanged(&q.overflow, false)
		return
	}
	if q.fifo.Unreserved() > q.room() {
		setIfChanged(&q.overflow, true)
	}
	for n := min(q.room(), q.fifo.Unreserved()); n > 0; n-- {
		item, seq, ok := q.fifo.Reserve(q.instant())
		if !ok {
			break
		}
		q.ready <- handoff[T]{item: item, seq: seq}
	}
	setIfChanged(&q.overflow, q.fifo.Unreserved() > 0)
}

// room returns how many more items ready has room for, at least: reservations enter ready in
// order, and every one up to the watermark has left it.
func (q *Queue[T]) room() int {
	return cap(q.ready) - int(q.fifo.LastReservation()-q.taken.Load())
}

// setIfChanged stores v in b unless b holds it already, sparing the getters' cache line.
func setIfChanged(b *atomic.Bool, v bool) {
	if b.Load() != v {
		b.Store(v)
	}
}
