package limiter

import (
	"fmt"
	"time"
)

// MaxWait caps the waits of another limiter at maxDelay: client-go's WithMaxWaitRateLimiter.
// Create it with [NewMaxWait].
type MaxWait[T comparable] struct {
	limiter  RateLimiter[T]
	maxDelay time.Duration
}

// NewMaxWait returns a [MaxWait] around limiter. It panics if limiter is nil or maxDelay is
// negative.
func NewMaxWait[T comparable](limiter RateLimiter[T], maxDelay time.Duration) *MaxWait[T] {
	if IsNil(limiter) {
		panic("workqueue: max-wait rate limiter: nil limiter")
	}
	if maxDelay < 0 {
		panic(fmt.Sprintf("workqueue: max-wait rate limiter: negative maximum delay %v", maxDelay))
	}
	return &MaxWait[T]{limiter: limiter, maxDelay: maxDelay}
}

// When returns the wrapped limiter's wait, capped at maxDelay.
func (w MaxWait[T]) When(item T) time.Duration { return w.WhenAt(item, time.Now()) }

// WhenAt returns the wrapped limiter's wait at the instant now, capped at maxDelay.
func (w MaxWait[T]) WhenAt(item T, now time.Time) time.Duration {
	return min(WhenAt(w.limiter, item, now), w.maxDelay)
}

// NumRequeues returns the wrapped limiter's count.
func (w MaxWait[T]) NumRequeues(item T) int { return w.limiter.NumRequeues(item) }

// Forget makes the wrapped limiter forget item.
func (w MaxWait[T]) Forget(item T) { w.limiter.Forget(item) }

// whenAt, numRequeues and forget are WhenAt, NumRequeues and Forget on the wrapped limiter's
// core: for a safe MaxWait only, whose limiter is of this package.

func (w MaxWait[T]) whenAt(item T, now time.Time) time.Duration {
	return min(part(w.limiter).whenAt(item, now), w.maxDelay)
}

func (w MaxWait[T]) numRequeues(item T) int { return part(w.limiter).numRequeues(item) }

func (w MaxWait[T]) forget(item T) { part(w.limiter).forget(item) }

func (w MaxWait[T]) adopt(o Owner) bool { return part(w.limiter).adopt(o) }

func (w MaxWait[T]) release(o Owner) { part(w.limiter).release(o) }

func (w MaxWait[T]) safe() bool { return Safe(w.limiter) }
