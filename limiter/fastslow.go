package limiter

import (
	"fmt"
	"time"
)

// FastSlow waits fastDelay for the first maxFastAttempts failures of an item and slowDelay
// after that: client-go's ItemFastSlowRateLimiter, with memory that stays bounded when Forget
// is never called. Create it with [NewFastSlow]. Its methods are safe for simultaneous use by
// multiple goroutines (see the package documentation).
//
// By default it remembers an item's failures until [FastSlow.Forget], or until the item has not
// failed for the longer of its two delays plus one hour (see [ForgetAfter]); client-go's
// remembers them until Forget only. An item retried through a queue's AddRateLimited fails
// again sooner, unless it spends over an hour queued and being processed, so it keeps its
// count: only an item abandoned without Forget is fast again where client-go's would stay slow.
// [ForgetAfter](0) remembers items until Forget, as client-go's does (the root package's
// client-go constructors build it so), [MaxTracked] adds a cap, and [JitterFactor] spreads the
// waits.
type FastSlow[T comparable] struct {
	guard
	failures        failures[T]
	fastDelay       time.Duration
	slowDelay       time.Duration
	maxFastAttempts int
	jitter          spread
}

// NewFastSlow returns a [FastSlow] limiter configured by opts. A maxFastAttempts of zero or
// less makes every retry slow. It panics if either delay is negative or an option is nil.
func NewFastSlow[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int, opts ...Option) *FastSlow[T] {
	if fastDelay < 0 || slowDelay < 0 {
		panic(fmt.Sprintf("workqueue: fast-slow rate limiter: negative delay (fast %v, slow %v)", fastDelay, slowDelay))
	}
	o := newOptions("fast-slow rate limiter", max(fastDelay, slowDelay), opts)
	return &FastSlow[T]{
		failures:        newFailures[T](o),
		fastDelay:       fastDelay,
		slowDelay:       slowDelay,
		maxFastAttempts: maxFastAttempts,
		jitter:          o.jitter,
	}
}

// When is WhenAt at time.Now().
func (r *FastSlow[T]) When(item T) time.Duration { return r.WhenAt(item, time.Now()) }

// WhenAt records a failure of item at the instant now and returns fastDelay while it has
// failed at most maxFastAttempts times, slowDelay afterwards, jittered if so configured.
func (r *FastSlow[T]) WhenAt(item T, now time.Time) time.Duration {
	return when(&r.guard, core[T](r), item, now)
}

func (r *FastSlow[T]) whenAt(item T, now time.Time) time.Duration {
	wait := r.slowDelay
	if r.memory().add(item, now) <= r.maxFastAttempts {
		wait = r.fastDelay
	}
	return r.jitter.apply(wait)
}

// NumRequeues returns the number of failures remembered for item.
func (r *FastSlow[T]) NumRequeues(item T) int { return count(&r.guard, core[T](r), item) }

func (r *FastSlow[T]) numRequeues(item T) int { return r.memory().count(item) }

// Forget clears the failures of item.
func (r *FastSlow[T]) Forget(item T) { forget(&r.guard, core[T](r), item) }

func (r *FastSlow[T]) forget(item T) { r.memory().forget(item) }

// Tracked returns how many items the limiter remembers failures of: the entries its memory
// holds.
func (r *FastSlow[T]) Tracked() int { return tracked[T](&r.guard, r) }

// memory returns the failures r remembers: none for the zero value, which cannot record any.
func (r *FastSlow[T]) memory() failures[T] {
	if r.failures == nil {
		return unmade[T]{"fast-slow rate limiter"}
	}
	return r.failures
}

func (r *FastSlow[T]) adopt(o Owner) bool { return r.guard.adopt(o) }

func (r *FastSlow[T]) release(o Owner) { r.guard.release(o) }

func (r *FastSlow[T]) safe() bool { return r != nil && r.failures != nil && !r.jitter.own() }
