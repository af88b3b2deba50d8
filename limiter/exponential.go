package limiter

import (
	"fmt"
	"math"
	"time"

	"github.com/actorqueue/workqueue/internal/mutant"
)

// Exponential waits baseDelay·2ⁿ before the (n+1)th retry of an item, never longer than
// maxDelay: client-go's ItemExponentialFailureRateLimiter. Create it with [NewExponential]; it
// remembers each item's failures until [Exponential.Forget]. Not safe for concurrent use (see
// the package documentation).
type Exponential[T comparable] struct {
	failures  map[T]int
	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewExponential returns an [Exponential] limiter. It panics if either delay is negative.
func NewExponential[T comparable](baseDelay, maxDelay time.Duration) *Exponential[T] {
	if baseDelay < 0 || maxDelay < 0 {
		panic(fmt.Sprintf("workqueue: exponential rate limiter: negative delay (base %v, max %v)", baseDelay, maxDelay))
	}
	return &Exponential[T]{failures: make(map[T]int), baseDelay: baseDelay, maxDelay: maxDelay}
}

// When records a failure of item and returns baseDelay·2ⁿ, where n counts the earlier failures,
// capped at maxDelay. The result is never negative, however many failures there were.
func (r *Exponential[T]) When(item T) time.Duration {
	n := r.failures[item]
	r.failures[item] = n + 1
	return exponential(r.baseDelay, r.maxDelay, n)
}

// exponential returns base·2ⁿ capped at max, computed in floating point so that it cannot wrap.
func exponential(base, max time.Duration, n int) time.Duration {
	if base == 0 {
		return 0 // and not 0·∞, which is NaN, once 2ⁿ overflows
	}
	backoff := float64(base) * math.Pow(2, float64(n))
	// float64(math.MaxInt64) is 2⁶³, one past the largest Duration: anything at or above it
	// would not convert.
	if mutant.Active(mutant.Uncapped) {
		max = math.MaxInt64
	}
	if backoff >= math.MaxInt64 || time.Duration(backoff) > max {
		return max
	}
	return time.Duration(backoff)
}

// NumRequeues returns the number of failures recorded for item.
func (r *Exponential[T]) NumRequeues(item T) int { return r.failures[item] }

// Forget clears the failures of item.
func (r *Exponential[T]) Forget(item T) { delete(r.failures, item) }

func (r *Exponential[T]) safe() bool { return r != nil }
