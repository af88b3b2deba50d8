package actor

import (
	"slices"
	"time"

	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/queue/priority"
)

// AddOpts are the options of an add to a priority queue: controller-runtime's AddOpts.
type AddOpts struct {
	// After delays the item; zero or less makes it ready at once.
	After time.Duration
	// RateLimited delays the item by the rate limiter's wait, if that is shorter than After or
	// After is zero.
	RateLimited bool
	// Priority ranks the item; higher goes first. nil means zero.
	Priority *int
}

// PriorityQueue is a queue with controller-runtime's rules (see package queue/priority). Create
// it with [NewPriority]. Its methods are safe for simultaneous use.
type PriorityQueue[T comparable] struct {
	*Queue[T]
}

// AddWithOpts adds items in order with the options o, asking h when o.RateLimited. An item
// already there keeps the higher priority and the earlier instant. After shutdown it does
// nothing.
//
// A limiter that is not owned is asked in the caller, before any item is added (its panic is
// the caller's, and adds none). Once asked, the items are added even if shutdown began
// meanwhile, as in controller-runtime, where the limiter is asked after its last look at the
// shutdown; there, under the lock Len takes, so a Len after ShutDown has returned waits for
// the add, while here it may count the items only later.
//
// With a maximum of retries and o.RateLimited, each item counts a requeue, even after shutdown;
// the caller waits for the owner to count them, and gives up on those past the maximum.
func (q *PriorityQueue[T]) AddWithOpts(o AddOpts, h *limiter.Handle[T], items ...T) {
	for _, item := range items {
		q.checkAdd("AddWithOpts", item)
	}
	counting := o.RateLimited && h.Retries().Max > 0
	stopping := q.stopping.Load()
	if len(items) == 0 || stopping && !counting {
		return
	}
	d := &details[T]{items: slices.Clone(items), after: o.After, rateLimited: o.RateLimited}
	if o.Priority != nil {
		d.priority = *o.Priority
	}
	c := command[T]{op: opAddBatch, lim: h, more: d}
	if o.After > 0 || o.RateLimited {
		now := q.clock.Now() // so that a fake clock stepped right after counts from the call
		c.at = q.since(now)
		if o.RateLimited && !h.Owned() && !stopping {
			d.delays, d.rateLimited = make([]time.Duration, len(items)), false
			for i, item := range items {
				d.delays[i] = priority.Delay(o.After, h.WhenAt(item, now))
			}
		}
	}
	if counting {
		q.call(c)
		h.GiveUp(h.Retries().Max+1, d.items...) // the items the owner gave up on
		return
	}
	q.post(c)
}

// AddAfter is AddWithOpts with After: duration.
func (q *PriorityQueue[T]) AddAfter(item T, duration time.Duration) {
	q.AddWithOpts(AddOpts{After: duration}, nil, item)
}

// AddRateLimited is AddWithOpts with RateLimited, asking h.
func (q *PriorityQueue[T]) AddRateLimited(item T, h *limiter.Handle[T]) {
	q.AddWithOpts(AddOpts{RateLimited: true}, h, item)
}

// GetWithPriority is Get that also returns the item's priority.
func (q *PriorityQueue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	item, priority, shutdown, _ = q.wait(nil)
	return item, priority, shutdown
}
