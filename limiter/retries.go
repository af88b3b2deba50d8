package limiter

import "github.com/actorqueue/workqueue/metrics"

// Retries is what a queue counts of the rate-limited requeues through its limiter, and when it
// gives up on an item: the MaxRetries, GiveUp and retries metrics of the queue configs. The
// queue keeps the counts; see the root package's documentation, "Retries". Its zero value
// counts nothing and gives up on nothing.
type Retries[T comparable] struct {
	// Counter counts each AddRateLimited before shutdown: client-go's retries metric.
	Counter metrics.CounterMetric
	// Max is the most rate-limited requeues of an item since its last Forget; the next one
	// gives up on it. Zero means no maximum.
	Max int
	// GiveUp hears of each item given up on, with its attempts (Max+1), in the goroutine of
	// the call that gave up; GivenUp counts them. Either may be nil.
	GiveUp  func(item T, attempts int)
	GivenUp metrics.CounterMetric
}

// Counts are the rate-limited requeues of each item since its last Forget, which a queue counts
// against [Retries.Max]. The zero value counts none. It is not safe for simultaneous use: a
// queue keeps it in its owner goroutine, or under a lock.
type Counts[T comparable] struct{ n map[T]int }

// Count counts one rate-limited requeue of item under the maximum max, and reports whether the
// queue gives up on the item instead: once the count passes max, its count then dropped (the
// rest of giving up is [Handle.ForgetGivenUp] and [Handle.GiveUp]). With max zero it counts
// nothing and reports false.
func (c *Counts[T]) Count(item T, max int) (giveUp bool) {
	if max == 0 {
		return false
	}
	n := c.n[item] + 1
	if n > max {
		delete(c.n, item)
		return true
	}
	if c.n == nil {
		c.n = make(map[T]int)
	}
	c.n[item] = n
	return false
}

// Uncount takes back one requeue of item that Count allowed but that did not happen (the
// limiter asked for its wait panicked). A count dropped meanwhile stays dropped.
func (c *Counts[T]) Uncount(item T) {
	switch n := c.n[item]; {
	case n > 1:
		c.n[item] = n - 1
	case n == 1:
		delete(c.n, item)
	}
}

// Drop forgets item's count.
func (c *Counts[T]) Drop(item T) { delete(c.n, item) }
