package limiter

import (
	"fmt"
	"math"
	"time"
)

// Exponential waits baseDelay·2ⁿ before the (n+1)th retry of an item, never longer than
// maxDelay: client-go's ItemExponentialFailureRateLimiter, with memory that stays bounded when
// Forget is never called. Create it with [NewExponential]. Its methods are safe for
// simultaneous use by multiple goroutines (see the package documentation).
//
// By default it remembers an item's failures until [Exponential.Forget], or until the item has
// not failed for maxDelay plus one hour (see [ForgetAfter]); client-go's remembers them until
// Forget only. An item retried through a queue's AddRateLimited fails again sooner, unless it
// spends over an hour queued and being processed, so it keeps its count: only an item abandoned
// without Forget starts over from baseDelay where client-go's would go on from its old count.
// [ForgetAfter](0) remembers items until Forget, as client-go's does (the root package's
// client-go constructors build it so), [MaxTracked] adds a cap, and [JitterFactor] spreads the
// waits.
type Exponential[T comparable] struct {
	guard
	failures  failures[T]
	baseDelay time.Duration
	maxDelay  time.Duration
	jitter    spread
}

// NewExponential returns an [Exponential] limiter configured by opts. It panics if either
// delay is negative or an option is nil.
func NewExponential[T comparable](baseDelay, maxDelay time.Duration, opts ...Option) *Exponential[T] {
	if baseDelay < 0 || maxDelay < 0 {
		panic(fmt.Sprintf("workqueue: exponential rate limiter: negative delay (base %v, max %v)", baseDelay, maxDelay))
	}
	o := newOptions("exponential rate limiter", maxDelay, opts)
	return &Exponential[T]{failures: newFailures[T](o), baseDelay: baseDelay, maxDelay: maxDelay, jitter: o.jitter}
}

// When is WhenAt at time.Now().
func (r *Exponential[T]) When(item T) time.Duration { return r.WhenAt(item, time.Now()) }

// WhenAt records a failure of item at the instant now and returns baseDelay·2ⁿ, where n counts
// the earlier failures it remembers, capped at maxDelay, then jittered if so configured. The
// result is never negative, however many failures there were.
func (r *Exponential[T]) WhenAt(item T, now time.Time) time.Duration {
	return when(&r.guard, core[T](r), item, now)
}

func (r *Exponential[T]) whenAt(item T, now time.Time) time.Duration {
	n := max(r.memory().add(item, now)-1, 0) // a NaN counts 0: client-go waits baseDelay for it
	return r.jitter.apply(exponential(r.baseDelay, r.maxDelay, n))
}

// exponential returns base·2ⁿ capped at max, computed in floating point so that it cannot wrap.
func exponential(base, max time.Duration, n int) time.Duration {
	if base == 0 {
		return 0 // and not 0·∞, which is NaN, once 2ⁿ overflows
	}
	backoff := float64(base) * math.Pow(2, float64(n))
	// float64(math.MaxInt64) is 2⁶³, one past the largest Duration: anything at or above it
	// would not convert.
	if backoff >= math.MaxInt64 || time.Duration(backoff) > max {
		return max
	}
	return time.Duration(backoff)
}

// NumRequeues returns the number of failures remembered for item.
func (r *Exponential[T]) NumRequeues(item T) int { return count(&r.guard, core[T](r), item) }

func (r *Exponential[T]) numRequeues(item T) int { return r.memory().count(item) }

// Forget clears the failures of item.
func (r *Exponential[T]) Forget(item T) { forget(&r.guard, core[T](r), item) }

func (r *Exponential[T]) forget(item T) { r.memory().forget(item) }

// Tracked returns how many items the limiter remembers failures of: the entries its memory
// holds.
func (r *Exponential[T]) Tracked() int { return tracked[T](&r.guard, r) }

// memory returns the failures r remembers: none for the zero value, which cannot record any.
func (r *Exponential[T]) memory() failures[T] {
	if r.failures == nil {
		return unmade[T]{"exponential rate limiter"}
	}
	return r.failures
}

func (r *Exponential[T]) adopt(o Owner) bool { return r.guard.adopt(o) }

func (r *Exponential[T]) release(o Owner) { r.guard.release(o) }

func (r *Exponential[T]) safe() bool { return r != nil && r.failures != nil && !r.jitter.own() }
