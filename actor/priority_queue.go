package actor

import (
	"slices"
	"time"

	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/queue/priority"
)

// AddOpts are the options of an add to a priority queue, with the fields of
// controller-runtime's priorityqueue.AddOpts.
type AddOpts struct {
	// After delays the item; zero or less makes it ready at once.
	After time.Duration
	// RateLimited delays the item by the wait the queue's rate limiter decides, if that is
	// shorter than After (or After is zero).
	RateLimited bool
	// Priority ranks the item; higher goes first. nil means zero.
	Priority *int
}

// PriorityQueue is a queue with the rules of controller-runtime's priority queue, run by one
// owner goroutine (see package queue/priority for the rules). Create it with [NewPriority]. Its
// methods are safe for simultaneous use by multiple goroutines.
type PriorityQueue[T comparable] struct {
	*Queue[T]
}

// AddWithOpts adds items in order, with the options o; l is the rate limiter asked when
// o.RateLimited. An item already ready or waiting keeps the higher of its priorities and the
// earlier of its instants. It does nothing after shutdown.
//
// A limiter that is not of package limiter is asked in the caller's goroutine, before any item
// is added, as a FIFO queue asks it (see Limiter): if it panics, the panic is the caller's, and
// no item is added. Once it has been asked, the items are added even if a shutdown began
// meanwhile, as in controller-runtime, where an add asks the limiter only after its last look
// at the shutdown. There it asks under the lock that Len takes, so a Len called once ShutDown
// has returned waits for the add; here Len may answer before the items are added, and count
// them after.
//
// With a maximum of retries (see Retries.Max) and o.RateLimited, each item counts a requeue,
// even after shutdown; the caller waits for the owner to count them, and gives up on the items
// past the maximum, once the others are added.
func (q *PriorityQueue[T]) AddWithOpts(o AddOpts, l *limiter.Handle[T], items ...T) {
	for _, item := range items {
		q.checkAdd("AddWithOpts", item)
	}
	counting := o.RateLimited && l.Retries().Max > 0
	stopping := q.stopping.Load()
	if len(items) == 0 || stopping && !counting {
		return
	}
	d := &details[T]{items: slices.Clone(items), after: o.After, rateLimited: o.RateLimited}
	if o.Priority != nil {
		d.priority = *o.Priority
	}
	c := command[T]{op: opAddBatch, lim: l, more: d}
	if o.After > 0 || o.RateLimited {
		now := q.clock.Now() // read here, so that a fake clock stepped right after counts from the call
		c.at = q.since(now)
		if o.RateLimited && !l.Owned() && !stopping {
			d.delays, d.rateLimited = delaysOf(l, items, o.After, now), false
		}
	}
	if counting {
		q.call(c)
		l.GiveUp(l.Retries().Max+1, d.items...) // the items the owner gave up on
		return
	}
	q.post(c)
}

// delaysOf asks l how long each item should wait, at the instant now, and returns each item's
// delay under the option After of its add (see priority.Delay).
func delaysOf[T comparable](l *limiter.Handle[T], items []T, after time.Duration, now time.Time) []time.Duration {
	delays := make([]time.Duration, len(items))
	for i, item := range items {
		delays[i] = priority.Delay(after, l.WhenAt(item, now))
	}
	return delays
}

// AddAfter is AddWithOpts with After: duration.
func (q *PriorityQueue[T]) AddAfter(item T, duration time.Duration) {
	q.AddWithOpts(AddOpts{After: duration}, nil, item)
}

// AddRateLimited is AddWithOpts with RateLimited, asking l.
func (q *PriorityQueue[T]) AddRateLimited(item T, l *limiter.Handle[T]) {
	q.AddWithOpts(AddOpts{RateLimited: true}, l, item)
}

// GetWithPriority is Get that also returns the item's priority.
func (q *PriorityQueue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	item, priority, shutdown, _ = q.wait(nil)
	return item, priority, shutdown
}
