package limiter

import (
	"fmt"
	"time"
)

// FastSlow waits fastDelay for the first maxFastAttempts failures of an item and slowDelay
// after that: client-go's ItemFastSlowRateLimiter. Create it with [NewFastSlow]. Not safe for
// concurrent use (see the package documentation).
type FastSlow[T comparable] struct {
	failures        map[T]int
	fastDelay       time.Duration
	slowDelay       time.Duration
	maxFastAttempts int
}

// NewFastSlow returns a [FastSlow] limiter. A maxFastAttempts of zero or less makes every
// retry slow. It panics if either delay is negative.
func NewFastSlow[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) *FastSlow[T] {
	if fastDelay < 0 || slowDelay < 0 {
		panic(fmt.Sprintf("workqueue: fast-slow rate limiter: negative delay (fast %v, slow %v)", fastDelay, slowDelay))
	}
	return &FastSlow[T]{failures: make(map[T]int), fastDelay: fastDelay, slowDelay: slowDelay, maxFastAttempts: maxFastAttempts}
}

// When records a failure of item and returns fastDelay while it has failed at most
// maxFastAttempts times, slowDelay afterwards.
func (r *FastSlow[T]) When(item T) time.Duration {
	n := r.failures[item] + 1
	r.failures[item] = n
	if n <= r.maxFastAttempts {
		return r.fastDelay
	}
	return r.slowDelay
}

// NumRequeues returns the number of failures recorded for item.
func (r *FastSlow[T]) NumRequeues(item T) int { return r.failures[item] }

// Forget clears the failures of item.
func (r *FastSlow[T]) Forget(item T) { delete(r.failures, item) }

func (r *FastSlow[T]) safe() bool { return r != nil }
