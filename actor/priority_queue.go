package actor

import (
	"context"
	"slices"
	"time"

	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/queue/priority"
)

// PriorityQueue is a queue with controller-runtime's rules (see package queue/priority). Create
// it with [NewPriority]. Its methods are safe for simultaneous use.
type PriorityQueue[T comparable] struct {
	*Queue[T]
}

// AddWithOpts adds items in order with the options of the root package's AddOpts, asking h
// when rateLimited. An item already there keeps the higher priority and the earlier instant.
// After shutdown it adds nothing. With a maximum of retries and rateLimited, each item counts
// a requeue, even after shutdown: the caller waits for the owner to count them, and gives up
// on those past the maximum.
//
// A limiter that is not owned is asked in the caller first: its panic adds none. The items are
// then added even if shutdown began meanwhile, as in controller-runtime, which asks it after
// its last look at the shutdown (there, a Len just after ShutDown waits for the add).
//
// timed marks AddAfter's adds: they keep their timing, even a zero delay, where the other adds
// without a delay or a rate limit wait out a debounce window, if the queue has one.
func (q *PriorityQueue[T]) AddWithOpts(after time.Duration, rateLimited, timed bool, prio *int, h *limiter.Handle[T], items ...T) {
	for _, item := range items {
		q.checkAdd("AddWithOpts", item)
	}
	counting := rateLimited && h.Retries().Max > 0
	stopping := q.stopping.Load()
	if len(items) == 0 || stopping && !counting {
		return
	}
	d := &details[T]{items: slices.Clone(items), after: after, rateLimited: rateLimited, timed: timed}
	if prio != nil {
		d.priority = *prio
	}
	c := command[T]{op: opAddBatch, lim: h, more: d}
	if after > 0 || rateLimited || q.debounces {
		now := q.clock.Now() // so that a fake clock stepped right after counts from the call
		c.at = q.since(now)
		if rateLimited && !h.Owned() && !stopping {
			d.delays, d.rateLimited = make([]time.Duration, len(items)), false
			for i, item := range items {
				d.delays[i] = priority.Delay(after, h.WhenAt(item, now))
			}
		}
	}
	if counting {
		q.call(c)
		h.GiveUp(d.items...) // the items the owner gave up on
		return
	}
	q.post(c)
}

// GetWithPriority is Get that also returns the item's priority.
func (q *PriorityQueue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	item, priority, shutdown, _ = q.wait(context.Background())
	return item, priority, shutdown
}
