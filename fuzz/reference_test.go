package fuzz

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// reference is a rate limiter as the specification describes it, for the model and the
// limiter targets to compare with. when takes the instant: the library's limiters read the
// queue's clock. References hold no locks; the model calls them under its mutex.
type reference[T comparable] interface {
	when(item T, now time.Time) time.Duration
	forget(item T)
	requeues(item T) int
}

// failures counts the failures of each item, for the references that count them.
type failures[T comparable] map[T]int

func (f failures[T]) forget(item T)       { delete(f, item) }
func (f failures[T]) requeues(item T) int { return f[item] }

// record counts one more failure of item and returns the number of earlier ones.
func (f failures[T]) record(item T) int {
	n := f[item]
	f[item] = n + 1
	return n
}

// refExponential is client-go's ItemExponentialFailureRateLimiter.
type refExponential[T comparable] struct {
	failures[T]
	base, max time.Duration
}

func (r refExponential[T]) when(item T, _ time.Time) time.Duration {
	return clientGoExponential(r.base, r.max, r.record(item))
}

// clientGoExponential is client-go's wait after n earlier failures: base·2ⁿ computed in
// float64, capped at max. Where client-go's conversion overflows into a negative delay (a
// product of 2⁶³ or more), or turns 0·∞ into one, this library documents that it answers max,
// or zero for a zero base.
func clientGoExponential(base, max time.Duration, n int) time.Duration {
	if base == 0 {
		return 0
	}
	backoff := float64(base) * math.Pow(2, float64(n))
	if backoff >= 1<<63 {
		return max
	}
	return min(time.Duration(backoff), max)
}

// refFastSlow is client-go's ItemFastSlowRateLimiter.
type refFastSlow[T comparable] struct {
	failures[T]
	fast, slow time.Duration
	fastTries  int
}

// when counts the failure, then reads the count back as client-go does. The two differ for an
// item not equal to itself (a NaN): the read finds nothing, so it is 0, and with no fast tries
// such an item still gets the fast delay.
func (r refFastSlow[T]) when(item T, _ time.Time) time.Duration {
	r.record(item)
	if r.failures[item] <= r.fastTries {
		return r.fast
	}
	return r.slow
}

// refMaxOf is client-go's MaxOfRateLimiter: every limiter is asked, the longest wait wins.
type refMaxOf[T comparable] []reference[T]

func (r refMaxOf[T]) when(item T, now time.Time) time.Duration {
	var longest time.Duration
	for _, l := range r {
		longest = max(longest, l.when(item, now))
	}
	return longest
}

func (r refMaxOf[T]) forget(item T) {
	for _, l := range r {
		l.forget(item)
	}
}

func (r refMaxOf[T]) requeues(item T) int {
	most := 0
	for _, l := range r {
		most = max(most, l.requeues(item))
	}
	return most
}

// refMaxWait is client-go's WithMaxWaitRateLimiter.
type refMaxWait[T comparable] struct {
	reference[T]
	max time.Duration
}

func (r refMaxWait[T]) when(item T, now time.Time) time.Duration {
	return min(r.reference.when(item, now), r.max)
}

// refBucket is client-go's BucketRateLimiter: one token bucket of package rate for all items.
type refBucket[T comparable] struct{ bucket *rate.Limiter }

func (r refBucket[T]) when(_ T, now time.Time) time.Duration { return reserve(r.bucket, now) }
func (r refBucket[T]) forget(T)                              {}
func (r refBucket[T]) requeues(T) int                        { return 0 }

// refItemBucket gives each item a token bucket of package rate of its own, created full on
// the item's first retry and dropped by forget.
type refItemBucket[T comparable] struct {
	limit   rate.Limit
	burst   int
	buckets map[T]*rate.Limiter
}

func newRefItemBucket[T comparable](limit rate.Limit, burst int) refItemBucket[T] {
	return refItemBucket[T]{limit: limit, burst: burst, buckets: make(map[T]*rate.Limiter)}
}

func (r refItemBucket[T]) when(item T, now time.Time) time.Duration {
	b, ok := r.buckets[item]
	if !ok {
		b = rate.NewLimiter(r.limit, r.burst)
		r.buckets[item] = b
	}
	return reserve(b, now)
}

func (r refItemBucket[T]) forget(item T)  { delete(r.buckets, item) }
func (r refItemBucket[T]) requeues(T) int { return 0 }

// reserve takes a token from b at now and returns how long until it is there.
func reserve(b *rate.Limiter, now time.Time) time.Duration {
	return b.ReserveN(now, 1).DelayFrom(now)
}
