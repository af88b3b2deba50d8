package workqueue

import (
	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
)

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
	// They run in the queue's goroutine and must not call the queue, or it hangs (see the
	// package documentation, "Code the queue runs").
	MetricsProvider MetricsProvider
	// Clock is the queue's clock; nil means the real one. Ignored when DelayingQueue is set.
	Clock Clock
	// DelayingQueue is the queue to retry items on; nil means a new one. A delaying queue of
	// this package with a goroutine of its own adopts a limiter of this package and runs it
	// there; any other limiter, and any limiter for another delaying queue (one of another
	// package, or one of ours around a queue of another package), is called in the caller's
	// goroutine, as client-go calls every limiter.
	DelayingQueue TypedDelayingInterface[T]
	// Group, MaxPerGroup and Debounce are those of TypedQueueConfig, for the queue this config
	// makes: they cannot be set with DelayingQueue (set them on that queue's config instead).
	Group       func(item T) string
	MaxPerGroup int
	Debounce    Debounce
	// MaxRetries is the most rate-limited requeues of an item: AddRateLimited requeues an item
	// MaxRetries times since its last Forget, and the next call gives up on it instead (see
	// the package documentation, "Retries"). Zero means no maximum, as in client-go; it must
	// not be negative.
	MaxRetries int
	// GiveUp, when set, is called with an item given up on and its attempts (MaxRetries + 1,
	// the failures that led to each requeue and the last), in the goroutine of the
	// AddRateLimited that gave up, once the queue has forgotten the item. It needs MaxRetries.
	GiveUp func(item T, attempts int)
}

// RateLimitingQueueConfig is TypedRateLimitingQueueConfig[any].
//
// Deprecated: use TypedRateLimitingQueueConfig instead.
type RateLimitingQueueConfig = TypedRateLimitingQueueConfig[any]

// rateLimitingQueue is a delaying queue of this package with a rate limiter.
type rateLimitingQueue[T comparable] struct {
	*delayingQueue[T]
	limiter *limiter.Handle[T]
}

// AddRateLimited adds item after the wait the rate limiter decides for it. The limiter is asked
// even after shutdown, so that the failure counts, as in client-go. With a maximum of retries,
// it gives up on an item that has reached it instead.
func (q *rateLimitingQueue[T]) AddRateLimited(item T) { q.q.AddRateLimited(item, q.limiter) }

// Forget makes the rate limiter stop tracking item, and resets its count of retries. It does
// not replace Done.
func (q *rateLimitingQueue[T]) Forget(item T) { q.q.Forget(item, q.limiter) }

// NumRequeues returns how many failures the rate limiter counts for item.
func (q *rateLimitingQueue[T]) NumRequeues(item T) int { return q.q.NumRequeues(item, q.limiter) }

// NewTypedRateLimitingQueue returns a new, unnamed rate-limiting queue. Remember to call Forget:
// the limiter tracks an item's failures until then. A nil rateLimiter is accepted, as in
// client-go: the queue then works as a delaying queue, and AddRateLimited, Forget and
// NumRequeues panic in the caller, with a runtime.Error that says so.
func NewTypedRateLimitingQueue[T comparable](rateLimiter TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return newRateLimiting("NewTypedRateLimitingQueue", rateLimiter, TypedRateLimitingQueueConfig[T]{})
}

// NewTypedRateLimitingQueueWithConfig returns a new rate-limiting queue configured by config.
// Remember to call Forget. A nil rateLimiter is accepted, as by NewTypedRateLimitingQueue.
//
// It panics, with a message that starts with "workqueue:", on invalid options: MaxPerGroup or
// MaxRetries negative, MaxPerGroup without Group, GiveUp without MaxRetries, a Debounce that
// NewTypedWithConfig refuses, or Group, MaxPerGroup or Debounce with DelayingQueue.
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	return newRateLimiting("NewTypedRateLimitingQueueWithConfig", rateLimiter, config)
}

// newRateLimiting is NewTypedRateLimitingQueueWithConfig called as constructor, which its
// panics and a nil limiter's name.
func newRateLimiting[T comparable](constructor string, rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	checkGroups(constructor, config.Group, config.MaxPerGroup)
	checkRetries(constructor, config.MaxRetries, config.GiveUp)
	checkDebounce(constructor, config.Debounce)
	if config.DelayingQueue != nil && (config.Group != nil || config.MaxPerGroup != 0 || config.Debounce != (Debounce{})) {
		panic("workqueue: " + constructor + ": Group, MaxPerGroup and Debounce apply to the queue it makes, " +
			"not to config.DelayingQueue: set them on that queue's config")
	}
	retries := limiter.Retries[T]{Max: config.MaxRetries, GiveUp: config.GiveUp}
	if config.MaxRetries > 0 { // before any queue starts, so that a provider that fails leaves none
		retries.GivenUp = metrics.NewGivenUp(config.Name, config.MetricsProvider)
	}
	var dq *delayingQueue[T]
	switch inner := config.DelayingQueue.(type) {
	case nil:
		dq = NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[T]{
			Name:            config.Name,
			MetricsProvider: config.MetricsProvider,
			Clock:           config.Clock,
			Group:           config.Group,
			MaxPerGroup:     config.MaxPerGroup,
			Debounce:        config.Debounce,
		}).(*delayingQueue[T])
	case *delayingQueue[T]:
		dq = inner
	case *rateLimitingQueue[T]:
		dq = inner.delayingQueue
	default:
		return &foreignRateLimiting[T]{TypedDelayingInterface: config.DelayingQueue,
			limiter: limiter.NewHandle(constructor, rateLimiter, retries)}
	}
	retries.Counter = dq.retries
	return &rateLimitingQueue[T]{delayingQueue: dq, limiter: dq.q.Adopt(constructor, rateLimiter, retries)}
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
