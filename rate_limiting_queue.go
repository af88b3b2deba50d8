package workqueue

import "github.com/actorqueue/workqueue/internal/actor"

// TypedRateLimitingInterface is a TypedDelayingInterface that retries items after the waits a
// rate limiter decides.
type TypedRateLimitingInterface[T comparable] interface {
	TypedDelayingInterface[T]
	// AddRateLimited adds item after the wait the rate limiter decides for it.
	AddRateLimited(item T)
	// Forget makes the rate limiter stop tracking item, after a success or when giving up. It
	// does not replace Done.
	Forget(item T)
	// NumRequeues returns how many failures the rate limiter counts for item.
	NumRequeues(item T) int
}

// RateLimitingInterface is TypedRateLimitingInterface[any].
//
// Deprecated: use TypedRateLimitingInterface instead.
type RateLimitingInterface TypedRateLimitingInterface[any]

// TypedRateLimitingQueueConfig configures a queue made by NewTypedRateLimitingQueueWithConfig.
// The zero value is valid.
type TypedRateLimitingQueueConfig[T comparable] struct {
	// Name names the queue for its metrics. An unnamed queue records no metrics.
	Name string
	// MetricsProvider creates the queue's metrics instead of the global provider (SetProvider).
	MetricsProvider MetricsProvider
	// Clock is the queue's clock; nil means the real one. Ignored when DelayingQueue is set.
	Clock Clock
	// DelayingQueue is the queue to retry items on; nil means a new one. A delaying queue of
	// this package with a goroutine of its own adopts a limiter of this package and runs it
	// there; any other limiter, and any limiter for another delaying queue (one of another
	// package, or one of ours around a queue of another package), is called in the caller's
	// goroutine, as client-go calls every limiter.
	DelayingQueue TypedDelayingInterface[T]
}

// RateLimitingQueueConfig is TypedRateLimitingQueueConfig[any].
//
// Deprecated: use TypedRateLimitingQueueConfig instead.
type RateLimitingQueueConfig = TypedRateLimitingQueueConfig[any]

// rateLimitingQueue is a delaying queue of this package with a rate limiter.
type rateLimitingQueue[T comparable] struct {
	*delayingQueue[T]
	limiter *actor.Limiter[T]
}

// AddRateLimited adds item after the wait the rate limiter decides for it. The limiter is asked
// even after shutdown, so that the failure counts, as in client-go.
func (q *rateLimitingQueue[T]) AddRateLimited(item T) { q.q.AddRateLimited(item, q.limiter) }

// Forget makes the rate limiter stop tracking item. It does not replace Done.
func (q *rateLimitingQueue[T]) Forget(item T) { q.q.Forget(item, q.limiter) }

// NumRequeues returns how many failures the rate limiter counts for item.
func (q *rateLimitingQueue[T]) NumRequeues(item T) int { return q.q.NumRequeues(item, q.limiter) }

// NewTypedRateLimitingQueue returns a new, unnamed rate-limiting queue. Remember to call Forget:
// the limiter tracks an item's failures until then. A nil rateLimiter is accepted, as in
// client-go: the queue then works as a delaying queue, and AddRateLimited, Forget and
// NumRequeues panic in the caller, with a runtime.Error that says so.
func NewTypedRateLimitingQueue[T comparable](rateLimiter TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return NewTypedRateLimitingQueueWithConfig(rateLimiter, TypedRateLimitingQueueConfig[T]{})
}

// NewTypedRateLimitingQueueWithConfig returns a new rate-limiting queue configured by config.
// Remember to call Forget. A nil rateLimiter is accepted, as by NewTypedRateLimitingQueue.
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	limiter := actor.NewLimiter("NewTypedRateLimitingQueueWithConfig", rateLimiter) // before any queue starts
	var dq *delayingQueue[T]
	switch inner := config.DelayingQueue.(type) {
	case nil:
		dq = NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[T]{
			Name:            config.Name,
			MetricsProvider: config.MetricsProvider,
			Clock:           config.Clock,
		}).(*delayingQueue[T])
	case *delayingQueue[T]:
		dq = inner
	case *rateLimitingQueue[T]:
		dq = inner.delayingQueue
	default:
		return actor.NewRetrier[T](config.DelayingQueue, limiter)
	}
	return &rateLimitingQueue[T]{delayingQueue: dq, limiter: dq.q.Adopt(limiter, dq.retries)}
}

// NewRateLimitingQueue returns a new, unnamed rate-limiting queue of any.
//
// Deprecated: use NewTypedRateLimitingQueue instead.
func NewRateLimitingQueue(rateLimiter RateLimiter) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{})
}

// NewRateLimitingQueueWithConfig returns a new rate-limiting queue of any configured by config.
//
// Deprecated: use NewTypedRateLimitingQueueWithConfig instead.
func NewRateLimitingQueueWithConfig(rateLimiter RateLimiter, config RateLimitingQueueConfig) RateLimitingInterface {
	return NewTypedRateLimitingQueueWithConfig[any](rateLimiter, config)
}

// NewNamedRateLimitingQueue returns a new rate-limiting queue of any named name.
//
// Deprecated: use NewRateLimitingQueueWithConfig instead.
func NewNamedRateLimitingQueue(rateLimiter RateLimiter, name string) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{Name: name})
}

// NewRateLimitingQueueWithDelayingInterface returns a rate-limiting queue that retries items on
// di.
//
// Deprecated: use NewRateLimitingQueueWithConfig instead.
func NewRateLimitingQueueWithDelayingInterface(di DelayingInterface, rateLimiter RateLimiter) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{DelayingQueue: di})
}
