package limiter

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"weak"

	"golang.org/x/time/rate"
)

// Bucket is one token bucket shared by all items: every retry of any item spends a token, and
// waits for one when the bucket is empty. It is client-go's BucketRateLimiter, with the same
// shape, so &Bucket[T]{rate.NewLimiter(10, 100)} and &Bucket[T]{Limiter: rate.NewLimiter(10,
// 100)} work as there, and a Bucket may be copied and compared. It tracks no failures. Its
// methods are safe for simultaneous use by multiple goroutines.
//
// Its rate.Limiter guards itself, but a queue adopts a Bucket all the same, so that a retry
// asked of it through another queue, or directly, spends its token after the retries this
// queue was asked for before (see the package documentation). Each Bucket is adopted on its
// own: Buckets over one rate.Limiter (a throttle shared by several controllers, say) may serve
// different queues, each asking the rate.Limiter from its own goroutine, and a copy of a Bucket
// is another Bucket. Set Limiter before a queue adopts the Bucket, and leave it.
type Bucket[T comparable] struct {
	*rate.Limiter
}

// When spends a token now and returns how long until it is available.
func (r *Bucket[T]) When(item T) time.Duration { return r.WhenAt(item, time.Now()) }

// WhenAt spends a token at the instant now and returns how long after now it is available.
func (r *Bucket[T]) WhenAt(item T, now time.Time) time.Duration {
	return when(guardOf(r), core[T](r), item, now)
}

func (r *Bucket[T]) whenAt(_ T, now time.Time) time.Duration {
	return r.Limiter.ReserveN(now, 1).DelayFrom(now)
}

// NumRequeues returns 0: a bucket does not count failures.
func (r *Bucket[T]) NumRequeues(T) int { return 0 }

func (r *Bucket[T]) numRequeues(T) int { return 0 }

// Forget does nothing: a bucket does not track items.
func (r *Bucket[T]) Forget(T) {}

func (r *Bucket[T]) forget(T) {}

func (r *Bucket[T]) adopt(o Owner) bool { return guardOf(r).adopt(o) }

func (r *Bucket[T]) release(o Owner) { guardOf(r).release(o) }

func (r *Bucket[T]) safe() bool { return r != nil && r.Limiter != nil }

// guards holds the guard of every Bucket used so far, since a Bucket, of client-go's shape,
// has no room for one. It holds each Bucket weakly: the entry goes once the Bucket is
// collected. A weak pointer, unlike an address, is never that of a later Bucket.
var guards sync.Map // weak.Pointer[Bucket[T]], of any T, to *guard

// guardOf returns the guard of b, creating it on first use. For a nil b it returns a guard of
// its own: the call it guards panics, in the caller, as client-go's does.
func guardOf[T comparable](b *Bucket[T]) *guard {
	if b == nil {
		return new(guard)
	}
	key := weak.Make(b)
	g, ok := guards.Load(key) // without an allocation, once b has a guard
	if !ok {
		var loaded bool
		g, loaded = guards.LoadOrStore(key, new(guard))
		if !loaded { // one cleanup for each entry stored
			runtime.AddCleanup(b, func(key weak.Pointer[Bucket[T]]) { guards.Delete(key) }, key)
		}
	}
	return g.(*guard)
}

// ItemBucket gives every item a token bucket of its own, refilled at the same rate: one item
// retried in a loop is slowed down without slowing down the others. It comes from client-go's
// original design (ItemBucketRateLimiter). Create it with [NewItemBucket]; it keeps each item's
// bucket until [ItemBucket.Forget]. Its methods are safe for simultaneous use by multiple
// goroutines (see the package documentation).
type ItemBucket[T comparable] struct {
	guard
	limit   rate.Limit
	burst   int
	buckets map[T]*rate.Limiter
}

// NewItemBucket returns an [ItemBucket] whose buckets refill at limit tokens per second and hold
// up to burst tokens. It panics if limit or burst is negative.
func NewItemBucket[T comparable](limit rate.Limit, burst int) *ItemBucket[T] {
	if limit < 0 || burst < 0 {
		panic(fmt.Sprintf("workqueue: item bucket rate limiter: negative rate %v or burst %d", limit, burst))
	}
	return &ItemBucket[T]{limit: limit, burst: burst, buckets: make(map[T]*rate.Limiter)}
}

// When spends a token from item's bucket now and returns how long until it is available.
func (r *ItemBucket[T]) When(item T) time.Duration { return r.WhenAt(item, time.Now()) }

// WhenAt spends a token from item's bucket at the instant now and returns how long after now
// it is available. An item's first retry finds a full bucket.
func (r *ItemBucket[T]) WhenAt(item T, now time.Time) time.Duration {
	return when(&r.guard, core[T](r), item, now)
}

func (r *ItemBucket[T]) whenAt(item T, now time.Time) time.Duration {
	b, ok := r.buckets[item]
	if !ok {
		b = rate.NewLimiter(r.limit, r.burst)
		r.buckets[item] = b
	}
	return b.ReserveN(now, 1).DelayFrom(now)
}

// NumRequeues returns 0: buckets do not count failures.
func (r *ItemBucket[T]) NumRequeues(T) int { return 0 }

func (r *ItemBucket[T]) numRequeues(T) int { return 0 }

// Forget drops item's bucket: its next retry finds a full one.
func (r *ItemBucket[T]) Forget(item T) { forget(&r.guard, core[T](r), item) }

func (r *ItemBucket[T]) forget(item T) { delete(r.buckets, item) }

func (r *ItemBucket[T]) adopt(o Owner) bool { return r.guard.adopt(o) }

func (r *ItemBucket[T]) release(o Owner) { r.guard.release(o) }

// safe is false for a zero ItemBucket, which has no map to keep buckets in: its WhenAt panics,
// in the caller's goroutine as client-go's does.
func (r *ItemBucket[T]) safe() bool { return r != nil && r.buckets != nil }
