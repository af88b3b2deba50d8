package actor

import (
	"context"
	"sync/atomic"
)

// Get blocks until an item is ready, marks it as being processed and returns it. Once the
// queue is shutting down it returns the items still waiting, then shutdown == true without
// blocking. Every item returned must be passed to Done.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	item, shutdown, _ = q.get(nil)
	return item, shutdown
}

// GetWithContext is Get that gives up when ctx is done, and then returns ctx.Err(). A getter
// that gives up takes nothing: no item is handed to a caller that has gone, so none is lost or
// left in processing. Workers can be stopped this way without shutting the queue down. When ctx
// is already done, it returns at once, without an item.
func (q *Queue[T]) GetWithContext(ctx context.Context) (item T, shutdown bool, err error) {
	if err := ctx.Err(); err != nil {
		return item, false, err
	}
	return q.get(ctx)
}

// get is Get, given up when ctx (which may be nil) is done.
func (q *Queue[T]) get(ctx context.Context) (item T, shutdown bool, err error) {
	if !q.readAhead {
		q.send(command[T]{op: opWant})
	}
	select {
	case h := <-q.ready:
		return q.take(h), false, nil
	default:
	}
	var cancel <-chan struct{}
	if ctx != nil {
		cancel = ctx.Done()
	}
	select {
	case h := <-q.ready:
		return q.take(h), false, nil
	case <-q.closing:
		r := q.call(command[T]{op: opGet})
		return r.item, r.shutdown, nil
	case <-cancel:
		if !q.readAhead {
			q.send(command[T]{op: opUnwant})
		}
		return item, false, ctx.Err()
	}
}

// take records that this getter took h, and returns its item. Raising the watermark is the
// whole of it: every command sent from now on carries the take in its stamp (see mailbox). A
// queue whose metrics are recorded asynchronously also tells the owner when the take happened,
// without waiting, so that the queue latency and work duration are measured from then. A
// queue whose owner runs foreign code also has it applied before Get returns, so that the
// metrics are current and a panic reaches this caller. A Get that panics hands out nothing:
// the item goes back to the queue rather than stay in processing, where nobody would call
// Done for it.
func (q *Queue[T]) take(h handoff[T]) T {
	if h.fault != nil {
		panic(h.fault)
	}
	raise(&q.taken, h.seq)
	if len(q.ready) == 0 && q.overflow.Load() {
		// This take emptied ready, and told the owner nothing: it may be asleep with more
		// items than ready had room for (see fifo.refill).
		q.mailbox.nudge()
	}
	if q.timed {
		q.send(command[T]{op: opTaken, item: h.item, at: q.since(q.clock.Now())})
	}
	if q.waits {
		if r := q.ask(command[T]{op: opTaken, item: h.item}); r.fault != nil {
			q.send(command[T]{op: opGiveBack, item: h.item})
			panic(r.fault)
		}
	}
	return h.item
}

// raise raises the watermark w to at least seq.
func raise(w *atomic.Uint64, seq uint64) {
	for seen := w.Load(); seen < seq && !w.CompareAndSwap(seen, seq); {
		seen = w.Load()
	}
}
