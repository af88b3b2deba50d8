package workqueue_test

import (
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
