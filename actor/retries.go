package actor

import (
	"sync"

	"github.com/actorqueue/workqueue/metrics"
)

// Retries is a queue's maximum of rate-limited requeues per item: it counts each item's
// AddRateLimited calls since its last Forget, and gives up on an item whose count exceeds the
// maximum. Giving up forgets the item (here and in the limiter), counts it on the given-up
// counter, and calls the give-up function, all in the goroutine of the call that gave up, never
// in a queue's owner: the give-up function is the user's, and may block, panic or call the
// queue.
//
// The counts are state of the queue: a queue of this package keeps them in its owner goroutine
// (they are read and changed through Queue.Do, and dropped through Queue.DoLater, so that
// Forget, called after every success, does not wait), a queue of another package under a mutex
// of their own. Create Retries with [NewRetries]; its methods are safe for simultaneous use.
type Retries[T comparable] struct {
	max     int
	giveUp  func(item T, attempts int) // nil: give up silently
	givenUp metrics.CounterMetric      // nil: count nothing
	run     func(func())               // runs a function with the counts to itself
	later   func(func())               // run, without waiting for it where it can
	counts  map[T]int                  // rate-limited requeues since the last Forget, by item
}

// NewRetries returns the maximum max (at least 1) of rate-limited requeues of q's items, with
// the give-up function giveUp and the counter givenUp, each of which may be nil. q nil means a
// queue of another package: the counts then have a mutex.
func NewRetries[T comparable](q *Queue[T], max int, giveUp func(T, int), givenUp metrics.CounterMetric) *Retries[T] {
	r := &Retries[T]{max: max, giveUp: giveUp, givenUp: givenUp, counts: make(map[T]int)}
	if q != nil {
		r.run, r.later = q.Do, q.DoLater
	} else {
		var mu sync.Mutex
		r.run = func(f func()) {
			mu.Lock()
			defer mu.Unlock()
			f()
		}
		r.later = r.run
	}
	return r
}

// GaveUp is an item a queue gave up on, with its attempts: how many times it failed, which is
// the rate-limited requeues it had plus the one refused.
type GaveUp[T comparable] struct {
	Item     T
	Attempts int
}

// Count counts one rate-limited requeue of each of items, in order, and returns the items that
// may be requeued and those given up on, whose counts start again from zero. method names the
// caller's method for the panic of an item that cannot be a map key.
func (r *Retries[T]) Count(method string, items ...T) (keep []T, gaveUp []GaveUp[T]) {
	for _, item := range items {
		mustHash(method, item)
	}
	r.run(func() {
		for _, item := range items {
			n := r.counts[item] + 1
			if n <= r.max {
				r.counts[item] = n
				keep = append(keep, item)
				continue
			}
			delete(r.counts, item)
			gaveUp = append(gaveUp, GaveUp[T]{Item: item, Attempts: n})
		}
	})
	return keep, gaveUp
}

// Allow is Count for one item: it reports whether item may be requeued, and, when not, gives
// up on it as [Retries.GiveUp] does, making forget forget it first.
func (r *Retries[T]) Allow(item T, forget func(T)) bool {
	_, gaveUp := r.Count("AddRateLimited", item)
	if gaveUp == nil {
		return true
	}
	r.GiveUp(gaveUp, forget)
	return false
}

// GiveUp gives up on items: for each, forget makes the rate limiter forget it, the given-up
// counter counts it, and the give-up function hears of it. If the give-up function panics, the
// items after it are still forgotten and counted, and the first panic is raised once all are.
func (r *Retries[T]) GiveUp(items []GaveUp[T], forget func(T)) {
	var fault any
	for _, g := range items {
		forget(g.Item)
		if r.givenUp != nil {
			r.givenUp.Inc()
		}
		if r.giveUp != nil {
			if p := callGiveUp(r.giveUp, g); p != nil && fault == nil {
				fault = p
			}
		}
	}
	if fault != nil {
		panic(fault)
	}
}

// callGiveUp calls giveUp with g and returns its panic, if any.
func callGiveUp[T comparable](giveUp func(T, int), g GaveUp[T]) (fault any) {
	defer func() { fault = recover() }()
	giveUp(g.Item, g.Attempts)
	return nil
}

// Forget drops item's count, as Forget drops its failures from the rate limiter.
func (r *Retries[T]) Forget(item T) {
	mustHash("Forget", item)
	r.later(func() { delete(r.counts, item) })
}

// Attempts returns item's count: its rate-limited requeues since its last Forget or give-up.
func (r *Retries[T]) Attempts(item T) int {
	var n int
	r.run(func() { n = r.counts[item] })
	return n
}
