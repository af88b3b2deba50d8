package equivalence

import (
	"time"

	"golang.org/x/time/rate"
	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// level is how much of the workqueue API a queue has.
type level uint8

const (
	plain        level = iota // TypedInterface
	delaying                  // TypedDelayingInterface
	rateLimiting              // TypedRateLimitingInterface
)

// queue is one queue under test, seen through client-go's interfaces (actorqueue's queues
// satisfy them). delayed and limited are nil when the queue's level lacks them.
type queue struct {
	plain   clientgo.TypedInterface[string]
	delayed clientgo.TypedDelayingInterface[string]
	limited clientgo.TypedRateLimitingInterface[string]
}

// newQueue fills in the views q has.
func newQueue(q clientgo.TypedInterface[string]) queue {
	d, _ := q.(clientgo.TypedDelayingInterface[string])
	r, _ := q.(clientgo.TypedRateLimitingInterface[string])
	return queue{plain: q, delayed: d, limited: r}
}

// variant is one way of building a queue, the same in both libraries. build is called inside
// the bubble, so that the queues' goroutines and timers belong to it.
type variant struct {
	name  string
	level level
	build func() (clientGo, actorQueue queue)
}

// variants lists every kind of queue and every built-in rate limiter. The limiters' delays are
// a few milliseconds, so that sequences reach their caps (the exponential limiters' at the third
// failure) and empty their buckets.
func variants() []variant {
	vs := []variant{
		{"plain", plain, func() (queue, queue) {
			return newQueue(clientgo.NewTyped[string]()), newQueue(actorqueue.NewTyped[string]())
		}},
		{"delaying", delaying, func() (queue, queue) {
			return newQueue(clientgo.NewTypedDelayingQueue[string]()),
				newQueue(actorqueue.NewTypedDelayingQueue[string]())
		}},
		{"delaying-over-plain", delaying, func() (queue, queue) {
			return newQueue(clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{
					Queue: clientgo.NewTyped[string](),
				})),
				newQueue(actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{
					Queue: actorqueue.NewTyped[string](),
				}))
		}},
		{"rate-limiting-over-delaying", rateLimiting, func() (queue, queue) {
			return newQueue(clientgo.NewTypedRateLimitingQueueWithConfig(
					clientgo.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 4*time.Millisecond),
					clientgo.TypedRateLimitingQueueConfig[string]{DelayingQueue: clientgo.NewTypedDelayingQueue[string]()})),
				newQueue(actorqueue.NewTypedRateLimitingQueueWithConfig(
					actorqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 4*time.Millisecond),
					actorqueue.TypedRateLimitingQueueConfig[string]{DelayingQueue: actorqueue.NewTypedDelayingQueue[string]()}))
		}},
	}
	for _, l := range limiters() {
		vs = append(vs, variant{"rate-limiting-" + l.name, rateLimiting, func() (queue, queue) {
			c, a := l.build()
			return newQueue(clientgo.NewTypedRateLimitingQueue(c)), newQueue(actorqueue.NewTypedRateLimitingQueue(a))
		}})
	}
	return vs
}

// limiterPair is one rate limiter, built alike in both libraries.
type limiterPair struct {
	name  string
	build func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string])
}

// limiters lists every built-in rate limiter, and the two combinators over the others.
func limiters() []limiterPair {
	return []limiterPair{
		{"exponential", func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string]) {
			return clientgo.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 3*time.Millisecond),
				actorqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 3*time.Millisecond)
		}},
		{"fast-slow", func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string]) {
			return clientgo.NewTypedItemFastSlowRateLimiter[string](2*time.Millisecond, 20*time.Millisecond, 3),
				actorqueue.NewTypedItemFastSlowRateLimiter[string](2*time.Millisecond, 20*time.Millisecond, 3)
		}},
		{"bucket", func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string]) {
			return &clientgo.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(50, 3)},
				&actorqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(50, 3)}
		}},
		{"max-of", func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string]) {
			return clientgo.NewTypedMaxOfRateLimiter(
					clientgo.NewTypedItemExponentialFailureRateLimiter[string](2*time.Millisecond, 5*time.Millisecond),
					clientgo.NewTypedItemFastSlowRateLimiter[string](3*time.Millisecond, 8*time.Millisecond, 2),
					&clientgo.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(100, 2)}),
				actorqueue.NewTypedMaxOfRateLimiter(
					actorqueue.NewTypedItemExponentialFailureRateLimiter[string](2*time.Millisecond, 5*time.Millisecond),
					actorqueue.NewTypedItemFastSlowRateLimiter[string](3*time.Millisecond, 8*time.Millisecond, 2),
					&actorqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(100, 2)})
		}},
		{"with-max-wait", func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string]) {
			return clientgo.NewTypedWithMaxWaitRateLimiter(
					clientgo.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second), 15*time.Millisecond),
				actorqueue.NewTypedWithMaxWaitRateLimiter(
					actorqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second), 15*time.Millisecond)
		}},
		{"default-item-based", func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string]) {
			return clientgo.DefaultTypedItemBasedRateLimiter[string](), actorqueue.DefaultTypedItemBasedRateLimiter[string]()
		}},
		{"default-controller", func() (clientgo.TypedRateLimiter[string], actorqueue.TypedRateLimiter[string]) {
			return clientgo.DefaultTypedControllerRateLimiter[string](), actorqueue.DefaultTypedControllerRateLimiter[string]()
		}},
	}
}
