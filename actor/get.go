package actor

import (
	"context"
	"sync/atomic"
)

// Get blocks until an item can be handed out, marks it as being processed and returns it; each
// must be passed to Done. Once the queue is shutting down, a FIFO queue returns the items still
// waiting, then shutdown == true; a priority queue returns shutdown == true.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	item, _, shutdown, _ = q.get(context.Background())
	return item, shutdown
}

// GetWithContext is Get that gives up when ctx is done, returning ctx.Err(). A getter that gives
// up takes nothing (an item that reached it as ctx ended is returned).
func (q *Queue[T]) GetWithContext(ctx context.Context) (item T, shutdown bool, err error) {
	if err := ctx.Err(); err != nil {
		return item, false, err
	}
	item, _, shutdown, err = q.get(ctx)
	return item, shutdown, err
}

// get is Get, given up when ctx is done. Reading ahead, it takes an item from
// ready, and asks the owner only once the queue is shutting down; otherwise see wait.
func (q *Queue[T]) get(ctx context.Context) (item T, priority int, shutdown bool, err error) {
	if q.ready == nil {
		return q.wait(ctx)
	}
	select {
	case h := <-q.ready:
		return q.take(h), 0, false, nil
	default:
	}
	select {
	case h := <-q.ready:
		return q.take(h), 0, false, nil
	case <-q.closing:
		r := q.call(command[T]{op: opGet})
		return r.item, 0, r.shutdown, nil
	case <-ctx.Done():
		return item, 0, false, ctx.Err()
	}
}

// wait asks the owner for an item, which it hands to this getter alone, on its reply channel,
// when it can. A getter that gives up withdraws; if an item reached it meanwhile, it returns it.
func (q *Queue[T]) wait(ctx context.Context) (item T, priority int, shutdown bool, err error) {
	reply := q.replies.Get().(chan result[T])
	q.send(command[T]{op: opGet, reply: reply})
	var r result[T]
	select {
	case r = <-reply:
	case <-ctx.Done(): // never, for context.Background
		q.send(command[T]{op: opUnwant, reply: reply}) // answered "cancelled" if it still waits
		r = <-reply
	}
	q.replies.Put(reply)
	throw(r)
	if r.cancelled {
		return item, 0, false, ctx.Err()
	}
	return r.item, r.n, r.shutdown, nil
}

// take takes h and returns its item. Raising the watermark is the whole of it: every command
// sent from now on carries the take (see mailbox). With metrics that trail the calls, it also
// tells the owner when the take happened.
func (q *Queue[T]) take(h handoff[T]) T {
	raiseTo(&q.taken, h.seq)
	if len(q.ready) == 0 && q.overflow.Load() {
		q.mailbox.nudge() // this take emptied ready, and more items wait (see fill)
	}
	if q.timed {
		q.send(command[T]{op: opTaken, item: h.item, at: q.since(q.clock.Now())})
	}
	return h.item
}

// raiseTo raises the watermark w to at least seq.
func raiseTo(w *atomic.Uint64, seq uint64) {
	for seen := w.Load(); seen < seq && !w.CompareAndSwap(seen, seq); {
		seen = w.Load()
	}
}
