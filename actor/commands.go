package actor

import (
	"slices"
	"time"

	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
)

// Add marks item as needing processing; after shutdown it does nothing. It panics in the
// caller if item cannot be a map key.
func (q *Queue[T]) Add(item T) {
	q.checkAdd("Add", item)
	if q.stopping.Load() {
		return
	}
	q.post(command[T]{op: opAdd, item: item})
}

// AddBatch adds items in order, in one command: a Len or Get elsewhere sees all or none. After
// shutdown it does nothing. It panics in the caller, adding none, if an item cannot be a map
// key or the group function panics for it.
func (q *Queue[T]) AddBatch(items ...T) {
	for _, item := range items {
		q.checkAdd("AddBatch", item)
	}
	if len(items) == 0 || q.stopping.Load() {
		return
	}
	q.post(command[T]{op: opAddBatch, more: &details[T]{items: slices.Clone(items)}})
}

// AddAfter adds item once delay has passed on the queue's clock, at once if delay <= 0; an
// item already waiting keeps the earlier instant. After shutdown it does nothing; otherwise it
// counts one retry on retries, if not nil, once the item is on its way.
func (q *Queue[T]) AddAfter(item T, delay time.Duration, retries metrics.CounterMetric) {
	q.checkAdd("AddAfter", item)
	if q.stopping.Load() {
		return
	}
	if delay <= 0 {
		q.post(command[T]{op: opAddNow, item: item})
	} else {
		// Read here, so that a fake clock stepped right after the call counts from the call.
		q.post(command[T]{op: opAddAfter, item: item, at: q.since(q.clock.Now().Add(delay))})
	}
	if retries != nil {
		retries.Inc()
	}
}

// AddRateLimited adds item after the wait h decides. h is asked even after shutdown, as in
// client-go, so the failure counts; the item is then dropped. Before shutdown it counts one
// retry on h's counter. With a maximum of retries, it waits for the owner to count the
// requeue, and gives up on an item past the maximum instead of adding it. An owned limiter is
// asked by the owner, at the instant of the call; any other in the caller, first.
func (q *Queue[T]) AddRateLimited(item T, h *limiter.Handle[T]) {
	q.checkAdd("AddRateLimited", item)
	now, r := q.clock.Now(), h.Retries()
	c := command[T]{op: opAddRateLimited, item: item, at: q.since(now), lim: h}
	if !h.Owned() {
		d := h.WhenAt(item, now)
		if r.Max == 0 {
			q.AddAfter(item, d, r.Counter)
			return
		}
		c.more = &details[T]{delays: []time.Duration{d}}
	}
	running := !q.stopping.Load()
	if r.Max == 0 {
		q.post(c)
	} else if q.call(c).gaveUp {
		h.GiveUp(item)
		return
	}
	if running && r.Counter != nil {
		r.Counter.Inc()
	}
}

// Forget makes h forget item's failures, and drops its count of retries.
func (q *Queue[T]) Forget(item T, h *limiter.Handle[T]) {
	q.check("Forget", item)
	if h.Owned() {
		q.post(command[T]{op: opForget, item: item, lim: h})
		return
	}
	h.Forget(item)
	if h.Retries().Max > 0 {
		q.post(command[T]{op: opForget, item: item})
	}
}

// NumRequeues returns the failures h counts for item.
func (q *Queue[T]) NumRequeues(item T, h *limiter.Handle[T]) int {
	q.check("NumRequeues", item)
	if !h.Owned() {
		return h.NumRequeues(item)
	}
	return q.call(command[T]{op: opNumRequeues, item: item, lim: h}).n
}

// Done ends the processing of item; if it was added meanwhile, it waits again. Done of an item
// not in processing does nothing. It works after shutdown too.
func (q *Queue[T]) Done(item T) {
	q.check("Done", item)
	q.post(command[T]{op: opDone, item: item})
}

// Len returns the number of items waiting to be handed out. Once asked, the owner publishes its
// queue's length at the end of each turn, and Len answers from it without a command whenever
// the owner had applied every command put (see fresh); otherwise it asks.
func (q *Queue[T]) Len() int {
	q.observe(false)
	if n, _, ok := q.fresh(); ok {
		return n
	}
	return q.call(command[T]{op: opLen}).n
}

// Superseded reports whether item is being processed and was added again since it was handed
// out (see queue.State.Superseded and priority.State.Superseded); false for an item not in
// processing. Once asked, the owner keeps the superseded items in its published view, and
// Superseded answers from it as Len does. It panics in the caller if item cannot be a map key.
func (q *Queue[T]) Superseded(item T) bool {
	q.check("Superseded", item)
	q.observe(true)
	if _, set, ok := q.fresh(); ok && set != nil {
		_, in := (*set)[item]
		return in
	}
	return q.call(command[T]{op: opSuperseded, item: item}).n == 1
}

// Snapshot returns the queue's counts at this instant, those of the root package's Snapshot,
// without stopping it, also after shutdown.
func (q *Queue[T]) Snapshot() (queued, processing, dirty, delayed, debouncing int, oldest time.Duration, shuttingDown bool) {
	q.call(command[T]{op: opSnapshot, more: &details[T]{do: func() {
		queued, processing, dirty, delayed, debouncing = q.core.Len(), q.core.Processing(), q.core.Dirty(), q.core.Delayed(), q.core.Debouncing()
		if since, ok := q.core.OldestSince(); ok {
			oldest = q.instant().Sub(since)
		}
		shuttingDown = q.core.Closed()
	}}})
	return queued, processing, dirty, delayed, debouncing, oldest, shuttingDown
}

// ShuttingDown reports whether shutdown has begun.
func (q *Queue[T]) ShuttingDown() bool { return q.stopping.Load() }
