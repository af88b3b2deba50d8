package workqueue

import (
	"time"

	"golang.org/x/time/rate"

	"github.com/actorqueue/workqueue/limiter"
)

// TypedRateLimiter decides how long an item waits before it is retried. The limiters of this
// package are safe for simultaneous use, as client-go's are; the queue that adopts one calls it
// from its own goroutine without locks, and runs there the calls made to it elsewhere (see
// package limiter). A limiter of your own is called in the caller's goroutine, as in client-go.
type TypedRateLimiter[T comparable] = limiter.RateLimiter[T]

// RateLimiter is TypedRateLimiter[any].
//
// Deprecated: use TypedRateLimiter instead.
type RateLimiter TypedRateLimiter[any]

// DefaultTypedControllerRateLimiter returns the rate limiter controllers use by default: the
// longer of a per-item exponential backoff (5ms doubling up to 1000s) and an overall token
// bucket (10 retries per second, bursts of 100).
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		&TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}

// DefaultControllerRateLimiter is DefaultTypedControllerRateLimiter[any].
//
// Deprecated: use DefaultTypedControllerRateLimiter instead.
func DefaultControllerRateLimiter() RateLimiter { return DefaultTypedControllerRateLimiter[any]() }

// DefaultTypedItemBasedRateLimiter returns a per-item exponential backoff from 1ms doubling up
// to 1000s.
func DefaultTypedItemBasedRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedItemExponentialFailureRateLimiter[T](time.Millisecond, 1000*time.Second)
}

// DefaultItemBasedRateLimiter is DefaultTypedItemBasedRateLimiter[any].
//
// Deprecated: use DefaultTypedItemBasedRateLimiter instead.
func DefaultItemBasedRateLimiter() RateLimiter { return DefaultTypedItemBasedRateLimiter[any]() }

// TypedBucketRateLimiter is one token bucket for all items: every retry spends a token. Build
// it as &TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(qps, burst)}, or unkeyed, as with
// client-go: its one field is the embedded *rate.Limiter.
type TypedBucketRateLimiter[T comparable] = limiter.Bucket[T]

// BucketRateLimiter is TypedBucketRateLimiter[any].
//
// Deprecated: use TypedBucketRateLimiter instead.
type BucketRateLimiter = TypedBucketRateLimiter[any]

// TypedItemBucketRateLimiter gives every item a token bucket of its own.
type TypedItemBucketRateLimiter[T comparable] = limiter.ItemBucket[T]

// ItemBucketRateLimiter is TypedItemBucketRateLimiter[any].
type ItemBucketRateLimiter = TypedItemBucketRateLimiter[any]

// NewTypedItemBucketRateLimiter returns a limiter that gives every item a token bucket
// refilled at r tokens per second and holding up to burst tokens. It panics if r or burst is
// negative.
func NewTypedItemBucketRateLimiter[T comparable](r rate.Limit, burst int) *TypedItemBucketRateLimiter[T] {
	return limiter.NewItemBucket[T](r, burst)
}

// NewItemBucketRateLimiter is NewTypedItemBucketRateLimiter[any].
func NewItemBucketRateLimiter(r rate.Limit, burst int) *ItemBucketRateLimiter {
	return NewTypedItemBucketRateLimiter[any](r, burst)
}

// TypedItemExponentialFailureRateLimiter waits baseDelay·2ⁿ before the (n+1)th retry of an
// item, up to maxDelay. Built by [NewTypedItemExponentialFailureRateLimiter], it remembers
// an item's failures until Forget, as client-go's does; built with options, it also forgets an
// item that has not failed for a while (see [limiter.Exponential]).
type TypedItemExponentialFailureRateLimiter[T comparable] = limiter.Exponential[T]

// ItemExponentialFailureRateLimiter is TypedItemExponentialFailureRateLimiter[any].
//
// Deprecated: use TypedItemExponentialFailureRateLimiter instead.
type ItemExponentialFailureRateLimiter = TypedItemExponentialFailureRateLimiter[any]

// NewTypedItemExponentialFailureRateLimiter returns a limiter that waits baseDelay·2ⁿ before
// the (n+1)th retry of an item, up to maxDelay. As client-go's, it remembers an item's
// failures until Forget, so its memory grows with every item that fails and is never
// forgotten; [NewTypedItemExponentialFailureRateLimiterWithOptions] bounds it. It panics if
// either delay is negative.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay time.Duration, maxDelay time.Duration) TypedRateLimiter[T] {
	return limiter.NewExponential[T](baseDelay, maxDelay, limiter.ForgetAfter(0))
}

// RateLimiterOption configures the failure tracking and the jitter of the exponential and
// fast-slow rate limiters: [limiter.ForgetAfter], [limiter.MaxTracked],
// [limiter.JitterFactor] and [limiter.RandomSource].
type RateLimiterOption = limiter.Option

// NewTypedItemExponentialFailureRateLimiterWithOptions returns a limiter that waits
// baseDelay·2ⁿ before the (n+1)th retry of an item, up to maxDelay, and whose memory stays
// bounded when Forget is never called: by default, it forgets an item that has not failed for
// maxDelay plus one hour, on the queue's clock. An item retried through AddRateLimited fails
// again sooner unless it spends over an hour queued and being processed, so its waits and
// NumRequeues are those of [NewTypedItemExponentialFailureRateLimiter]; only an item abandoned
// without Forget starts over. opts change that: limiter.ForgetAfter(2*time.Hour) forgets items
// two hours after their last failure, limiter.MaxTracked(10000) remembers 10000 at most,
// limiter.ForgetAfter(0) remembers them until Forget, and limiter.JitterFactor spreads the
// waits. It panics if either delay is negative or an option is nil.
func NewTypedItemExponentialFailureRateLimiterWithOptions[T comparable](baseDelay, maxDelay time.Duration, opts ...RateLimiterOption) *TypedItemExponentialFailureRateLimiter[T] {
	return limiter.NewExponential[T](baseDelay, maxDelay, opts...)
}

// NewTypedJitteredExponentialFailureRateLimiter returns an exponential limiter whose waits are
// shortened by a random fraction of up to jitter (between 0 and 1), so that items that fail
// together are not retried together: the (n+1)th retry of an item waits between
// (1-jitter)·w and w, where w is baseDelay·2ⁿ capped at maxDelay. Waits are never negative and
// never above maxDelay. Its memory is bounded, and opts configure it, as for
// [NewTypedItemExponentialFailureRateLimiterWithOptions]. It panics if either delay is
// negative, jitter is not between 0 and 1, or an option is nil.
func NewTypedJitteredExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration, jitter float64, opts ...RateLimiterOption) *TypedItemExponentialFailureRateLimiter[T] {
	return limiter.NewExponential[T](baseDelay, maxDelay, append([]RateLimiterOption{limiter.JitterFactor(jitter)}, opts...)...)
}

// NewItemExponentialFailureRateLimiter is NewTypedItemExponentialFailureRateLimiter[any].
//
// Deprecated: use NewTypedItemExponentialFailureRateLimiter instead.
func NewItemExponentialFailureRateLimiter(baseDelay time.Duration, maxDelay time.Duration) RateLimiter {
	return NewTypedItemExponentialFailureRateLimiter[any](baseDelay, maxDelay)
}

// TypedItemFastSlowRateLimiter retries an item quickly a number of times, then slowly. Built
// by [NewTypedItemFastSlowRateLimiter], it remembers an item's failures until Forget, as
// client-go's does; built with options, it also forgets an item that has not failed for a
// while (see [limiter.FastSlow]).
type TypedItemFastSlowRateLimiter[T comparable] = limiter.FastSlow[T]

// ItemFastSlowRateLimiter is TypedItemFastSlowRateLimiter[any].
//
// Deprecated: use TypedItemFastSlowRateLimiter instead.
type ItemFastSlowRateLimiter = TypedItemFastSlowRateLimiter[any]

// NewTypedItemFastSlowRateLimiter returns a limiter that waits fastDelay for the first
// maxFastAttempts failures of an item and slowDelay after that. As client-go's, it remembers
// an item's failures until Forget; [NewTypedItemFastSlowRateLimiterWithOptions] bounds that
// memory. It panics if either delay is negative.
func NewTypedItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) TypedRateLimiter[T] {
	return limiter.NewFastSlow[T](fastDelay, slowDelay, maxFastAttempts, limiter.ForgetAfter(0))
}

// NewTypedItemFastSlowRateLimiterWithOptions returns a limiter that waits fastDelay for the
// first maxFastAttempts failures of an item and slowDelay after that, and whose memory stays
// bounded: by default, it forgets an item that has not failed for the longer delay plus one
// hour (see [NewTypedItemExponentialFailureRateLimiterWithOptions] for what that changes, and
// for opts). It panics if either delay is negative or an option is nil.
func NewTypedItemFastSlowRateLimiterWithOptions[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int, opts ...RateLimiterOption) *TypedItemFastSlowRateLimiter[T] {
	return limiter.NewFastSlow[T](fastDelay, slowDelay, maxFastAttempts, opts...)
}

// NewItemFastSlowRateLimiter is NewTypedItemFastSlowRateLimiter[any].
//
// Deprecated: use NewTypedItemFastSlowRateLimiter instead.
func NewItemFastSlowRateLimiter(fastDelay, slowDelay time.Duration, maxFastAttempts int) RateLimiter {
	return NewTypedItemFastSlowRateLimiter[any](fastDelay, slowDelay, maxFastAttempts)
}

// TypedMaxOfRateLimiter answers with the longest wait of several limiters.
type TypedMaxOfRateLimiter[T comparable] = limiter.MaxOf[T]

// MaxOfRateLimiter is TypedMaxOfRateLimiter[any].
//
// Deprecated: use TypedMaxOfRateLimiter instead.
type MaxOfRateLimiter = TypedMaxOfRateLimiter[any]

// NewTypedMaxOfRateLimiter returns a limiter that asks every one of limiters and answers with
// the longest wait. It panics if one of them is nil. It keeps a copy of limiters: changing the
// caller's slice afterwards does not change it (client-go's keeps the slice itself).
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	return limiter.NewMaxOf(limiters...)
}

// NewMaxOfRateLimiter is NewTypedMaxOfRateLimiter[any].
//
// Deprecated: use NewTypedMaxOfRateLimiter instead.
func NewMaxOfRateLimiter(limiters ...TypedRateLimiter[any]) RateLimiter {
	return NewTypedMaxOfRateLimiter(limiters...)
}

// TypedWithMaxWaitRateLimiter caps the waits of another limiter.
type TypedWithMaxWaitRateLimiter[T comparable] = limiter.MaxWait[T]

// WithMaxWaitRateLimiter is TypedWithMaxWaitRateLimiter[any].
//
// Deprecated: use TypedWithMaxWaitRateLimiter instead.
type WithMaxWaitRateLimiter = TypedWithMaxWaitRateLimiter[any]

// NewTypedWithMaxWaitRateLimiter returns limiter with its waits capped at maxDelay. It panics if
// limiter is nil or maxDelay is negative.
func NewTypedWithMaxWaitRateLimiter[T comparable](limiter TypedRateLimiter[T], maxDelay time.Duration) TypedRateLimiter[T] {
	return newMaxWait(limiter, maxDelay)
}

// NewWithMaxWaitRateLimiter is NewTypedWithMaxWaitRateLimiter[any].
//
// Deprecated: use NewTypedWithMaxWaitRateLimiter instead.
func NewWithMaxWaitRateLimiter(limiter RateLimiter, maxDelay time.Duration) RateLimiter {
	return NewTypedWithMaxWaitRateLimiter[any](limiter, maxDelay)
}

// newMaxWait exists because the parameter named limiter, as in client-go, hides the package.
func newMaxWait[T comparable](l TypedRateLimiter[T], maxDelay time.Duration) TypedRateLimiter[T] {
	return limiter.NewMaxWait(l, maxDelay)
}
