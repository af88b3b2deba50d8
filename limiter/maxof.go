package limiter

import (
	"fmt"
	"slices"
	"time"
)

// MaxOf asks every one of its limiters and answers with the longest wait: client-go's
// MaxOfRateLimiter. Combined with a token bucket, an item delayed longer by another limiter
// still spends a token, so the bucket's burst can appear exceeded. Create it with [NewMaxOf].
type MaxOf[T comparable] struct {
	limiters []RateLimiter[T]
}

// NewMaxOf returns a [MaxOf] over a copy of limiters. With no limiters, every wait is zero. It
// panics if a limiter is nil.
func NewMaxOf[T comparable](limiters ...RateLimiter[T]) *MaxOf[T] {
	for i, l := range limiters {
		if IsNil(l) {
			panic(fmt.Sprintf("workqueue: max-of rate limiter: limiter %d is nil", i))
		}
	}
	return &MaxOf[T]{limiters: slices.Clone(limiters)} // later changes to the caller's slice do not reach it
}

// When asks every limiter, in order, and returns the longest wait.
func (r *MaxOf[T]) When(item T) time.Duration { return r.WhenAt(item, time.Now()) }

// WhenAt asks every limiter at the instant now, in order, and returns the longest wait.
func (r *MaxOf[T]) WhenAt(item T, now time.Time) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		longest = max(longest, WhenAt(l, item, now))
	}
	return longest
}

// NumRequeues returns the largest count any limiter reports.
func (r *MaxOf[T]) NumRequeues(item T) int {
	most := 0
	for _, l := range r.limiters {
		most = max(most, l.NumRequeues(item))
	}
	return most
}

// Forget makes every limiter forget item.
func (r *MaxOf[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// whenAt, numRequeues and forget are WhenAt, NumRequeues and Forget on the parts' cores: for a
// safe MaxOf only, whose parts are all of this package.

func (r *MaxOf[T]) whenAt(item T, now time.Time) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		longest = max(longest, part(l).whenAt(item, now))
	}
	return longest
}

func (r *MaxOf[T]) numRequeues(item T) int {
	most := 0
	for _, l := range r.limiters {
		most = max(most, part(l).numRequeues(item))
	}
	return most
}

func (r *MaxOf[T]) forget(item T) {
	for _, l := range r.limiters {
		part(l).forget(item)
	}
}

// release releases every part o owns.
func (r *MaxOf[T]) release(o Owner) {
	for _, l := range r.limiters {
		part(l).release(o)
	}
}

// adopt adopts every part, in order, up to the first that another owner holds.
func (r *MaxOf[T]) adopt(o Owner) bool {
	for _, l := range r.limiters {
		if !part(l).adopt(o) {
			return false
		}
	}
	return true
}

func (r *MaxOf[T]) safe() bool {
	if r == nil {
		return false
	}
	for _, l := range r.limiters {
		if !Safe(l) {
			return false
		}
	}
	return true
}
