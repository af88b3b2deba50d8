package workqueue_test

// Limiters as client-go's users write them: their own types that embed ours, and bucket
// literals without keys.

import (
	"reflect"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/time/rate"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/limiter"
)

// spy is what a user's limiter type declares over the limiter it embeds: When, Forget and
// NumRequeues of its own, which count their calls and answer what the embedded limiter never
// would.
type spy struct{ whens, forgets, requeues atomic.Int64 }

func (s *spy) When(string) time.Duration { s.whens.Add(1); return time.Hour }
func (s *spy) Forget(string)             { s.forgets.Add(1) }
func (s *spy) NumRequeues(string) int    { s.requeues.Add(1); return 42 }

// Each of our limiters, embedded in a user's type. The wrappers below embed one of these next
// to a *spy, whose methods, one level shallower, are the ones the wrapper has: as if the
// wrapper declared them. Our unexported methods and WhenAt are promoted from deeper down.
type (
	bucket struct {
		*workqueue.TypedBucketRateLimiter[string]
	}
	itemBucket struct {
		*workqueue.TypedItemBucketRateLimiter[string]
	}
	exponential struct {
		*workqueue.TypedItemExponentialFailureRateLimiter[string]
	}
	fastSlow struct {
		*workqueue.TypedItemFastSlowRateLimiter[string]
	}
	maxOf struct {
		*workqueue.TypedMaxOfRateLimiter[string]
	}
	maxWait struct {
		*workqueue.TypedWithMaxWaitRateLimiter[string]
	}
	maxWaitValue struct {
		workqueue.TypedWithMaxWaitRateLimiter[string]
	}
)

// wrappers builds, for each of our limiter kinds, a user's type that embeds it and overrides
// its methods with s's.
var wrappers = map[string]func(s *spy) workqueue.TypedRateLimiter[string]{
	"Bucket": func(s *spy) workqueue.TypedRateLimiter[string] {
		return struct {
			*spy
			bucket
		}{s, bucket{&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Inf, 1)}}}
	},
	"ItemBucket": func(s *spy) workqueue.TypedRateLimiter[string] {
		return struct {
			*spy
			itemBucket
		}{s, itemBucket{workqueue.NewTypedItemBucketRateLimiter[string](rate.Inf, 1)}}
	},
	"Exponential": func(s *spy) workqueue.TypedRateLimiter[string] {
		return struct {
			*spy
			exponential
		}{s, exponential{workqueue.NewTypedItemExponentialFailureRateLimiterWithOptions[string](time.Millisecond, time.Second)}}
	},
	"FastSlow": func(s *spy) workqueue.TypedRateLimiter[string] {
		return struct {
			*spy
			fastSlow
		}{s, fastSlow{workqueue.NewTypedItemFastSlowRateLimiterWithOptions[string](time.Millisecond, time.Second, 1)}}
	},
	"MaxOf": func(s *spy) workqueue.TypedRateLimiter[string] {
		return struct {
			*spy
			maxOf
		}{s, maxOf{limiter.NewMaxOf(workqueue.DefaultTypedItemBasedRateLimiter[string]())}}
	},
	"MaxWait": func(s *spy) workqueue.TypedRateLimiter[string] {
		return struct {
			*spy
			maxWait
		}{s, maxWait{limiter.NewMaxWait(workqueue.DefaultTypedItemBasedRateLimiter[string](), time.Second)}}
	},
	"MaxWait value": func(s *spy) workqueue.TypedRateLimiter[string] {
		return struct {
			*spy
			maxWaitValue
		}{s, maxWaitValue{*limiter.NewMaxWait(workqueue.DefaultTypedItemBasedRateLimiter[string](), time.Second)}}
	},
}

// TestAQueueCallsTheMethodsOfATypeThatEmbedsOurLimiter: a user's type that embeds one of our
// limiters and declares When, Forget and NumRequeues is called through those, as client-go
// calls it, whether the queue has it alone or inside a combinator; their answers are the
// queue's.
func TestAQueueCallsTheMethodsOfATypeThatEmbedsOurLimiter(t *testing.T) {
	uses := map[string]func(workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimiter[string]{
		"alone": func(l workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimiter[string] { return l },
		"in MaxOf": func(l workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedMaxOfRateLimiter(l, workqueue.DefaultTypedItemBasedRateLimiter[string]())
		},
		"in MaxWait": func(l workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimiter[string] {
			return workqueue.NewTypedWithMaxWaitRateLimiter(l, 2*time.Hour)
		},
	}
	for kind, wrap := range wrappers {
		for use, build := range uses {
			t.Run(kind+" "+use, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s := &spy{}
					q := workqueue.NewTypedRateLimitingQueue(build(wrap(s)))
					defer q.ShutDown()
					q.AddRateLimited("a")
					time.Sleep(time.Hour - time.Nanosecond)
					synctest.Wait()
					assert.Zero(t, q.Len(), "due before the hour the wrapper's When asked for")
					time.Sleep(time.Nanosecond)
					synctest.Wait()
					assert.Equal(t, 1, q.Len(), "due after the hour the wrapper's When asked for")
					assert.Equal(t, int64(1), s.whens.Load(), "calls to the wrapper's When")

					assert.Equal(t, 42, q.NumRequeues("a"))
					assert.Equal(t, int64(1), s.requeues.Load(), "calls to the wrapper's NumRequeues")
					q.Forget("a")
					assert.Equal(t, int64(1), s.forgets.Load(), "calls to the wrapper's Forget")
				})
			})
		}
	}
}

// unkeyed returns &B{l}: the unkeyed literal client-go's users write for its bucket limiters,
// &workqueue.BucketRateLimiter{rate.NewLimiter(qps, burst)}. B's constraint holds, and so
// unkeyed compiles for B, exactly when that literal compiles: when B is a struct of one
// embedded *rate.Limiter. (Written out, the literal would fail go vet's composites check,
// which reports unkeyed literals of other packages' types, client-go's as ours.)
func unkeyed[B ~struct{ *rate.Limiter }](l *rate.Limiter) *B { return &B{l} }

// TestBucketLiteralsCompileAsInClientGo: the bucket limiters are built, unkeyed, as with
// client-go, and a queue uses them.
func TestBucketLiteralsCompileAsInClientGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		typed := workqueue.NewTypedRateLimitingQueue[string](
			unkeyed[workqueue.TypedBucketRateLimiter[string]](rate.NewLimiter(1, 1)))
		defer typed.ShutDown()
		untyped := workqueue.NewRateLimitingQueue(unkeyed[workqueue.BucketRateLimiter](rate.NewLimiter(1, 1)))
		defer untyped.ShutDown()

		typed.AddRateLimited("a") // the burst's one token
		typed.AddRateLimited("b") // the next, a second later
		untyped.AddRateLimited("a")
		untyped.AddRateLimited("b")
		synctest.Wait()
		assert.Equal(t, 1, typed.Len())
		assert.Equal(t, 1, untyped.Len())
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, 2, typed.Len())
		assert.Equal(t, 2, untyped.Len())
	})
}

// TestBucketsOverOneLimiterAreDeepEqual: a bucket limiter holds nothing but its rate.Limiter,
// as client-go's does, even while a queue has adopted it; and it may be copied (go vet checks
// that it holds no lock).
func TestBucketsOverOneLimiterAreDeepEqual(t *testing.T) {
	lim := rate.NewLimiter(10, 100)
	fresh := func() *workqueue.TypedBucketRateLimiter[string] {
		return &workqueue.TypedBucketRateLimiter[string]{Limiter: lim}
	}
	assert.True(t, reflect.DeepEqual(fresh(), fresh()), "two fresh ones")
	used := fresh()
	q := workqueue.NewTypedRateLimitingQueue[string](used)
	defer q.ShutDown()
	q.AddRateLimited("a")
	assert.True(t, reflect.DeepEqual(used, fresh()), "one a queue has adopted, and a fresh one")
	copied := *used
	assert.True(t, reflect.DeepEqual(&copied, fresh()), "a copy")
}
