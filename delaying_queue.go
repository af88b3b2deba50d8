package workqueue

import (
	"time"

	"github.com/actorqueue/workqueue/metrics"
)

// TypedDelayingInterface is a TypedInterface that can add an item later, which keeps retries
// after failures out of a hot loop.
type TypedDelayingInterface[T comparable] interface {
	TypedInterface[T]
	// AddAfter adds item once duration has passed; a duration of zero or less adds it at once.
	// An item already waiting keeps the earlier of the two instants.
	AddAfter(item T, duration time.Duration)
}

// DelayingInterface is TypedDelayingInterface[any].
//
// Deprecated: use TypedDelayingInterface instead.
type DelayingInterface TypedDelayingInterface[any]

// TypedDelayingQueueConfig configures a queue made by NewTypedDelayingQueueWithConfig. The zero
// value is valid.
type TypedDelayingQueueConfig[T comparable] struct {
	// Logger is accepted so that code written for client-go, where it is a *klog.Logger,
	// compiles unchanged. It is ignored: these queues have nothing to log.
	Logger any
	// Name names the queue for its metrics. An unnamed queue records no metrics.
	Name string
	// MetricsProvider creates the queue's metrics instead of the global provider (SetProvider).
	// They run in the queue's goroutine and must not call the queue, or it hangs (see the
	// package documentation, "Code the queue runs").
	MetricsProvider MetricsProvider
	// Clock times the delays; nil means the real clock.
	Clock Clock
	// Queue is the queue to add items to; nil means a new queue. Each delaying queue holds its own
	// delays, as in client-go: the same item delayed through two of them is added once by each. A
	// queue made by NewTypedWithConfig on the same clock shares its goroutine with the first
	// delaying queue built around it. Any other queue (of another package, a type of the caller's
	// own that embeds one of ours, one on another clock, a delaying or rate-limiting queue, or one
	// already wrapped) gets a second goroutine that holds the delays. When it wakes (for an
	// AddAfter, a due item, or, on a clock passed in, client-go's 10 s heartbeat) and finds the
	// queue shut down directly, it drops the delayed items and exits.
	Queue TypedInterface[T]
	// Group, MaxPerGroup and Debounce are those of TypedQueueConfig, for the queue this config
	// makes: they cannot be set with Queue (set them on that queue's config instead).
	Group       func(item T) string
	MaxPerGroup int
	Debounce    Debounce
}

// DelayingQueueConfig is TypedDelayingQueueConfig[any].
//
// Deprecated: use TypedDelayingQueueConfig instead.
type DelayingQueueConfig = TypedDelayingQueueConfig[any]

// delayingQueue is a queue of this package with AddAfter.
type delayingQueue[T comparable] struct {
	*Typed[T]
	retries metrics.CounterMetric
}

// AddAfter adds item once duration has passed on the queue's clock; a duration of zero or less
// adds it at once. An item already waiting keeps the earlier of the two instants. It does
// nothing after shutdown, and an item still waiting at shutdown is dropped (ShutDownWithDrain
// too), as in client-go. A debounce window does not hold it: its timing is decided (see the
// package documentation, "Debounce").
func (q *delayingQueue[T]) AddAfter(item T, duration time.Duration) {
	q.q.AddAfter(item, duration, q.retries)
}

// NewTypedDelayingQueue returns a new, unnamed delaying queue.
func NewTypedDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[T]{})
}

// NewTypedDelayingQueueWithConfig returns a new delaying queue configured by config. A named
// queue asks its metrics provider for the retries counter after the metrics of the queue it
// adds to, as client-go does.
func NewTypedDelayingQueueWithConfig[T comparable](config TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	checkDebounce("NewTypedDelayingQueueWithConfig", config.Debounce)
	if config.Queue != nil && (config.Group != nil || config.MaxPerGroup != 0 || config.Debounce != (Debounce{})) {
		panic("workqueue: NewTypedDelayingQueueWithConfig: Group, MaxPerGroup and Debounce apply to the " +
			"queue it makes, not to config.Queue: set them on that queue's config")
	}
	switch inner := config.Queue.(type) {
	case nil:
		t, retries := newTyped(TypedQueueConfig[T]{
			Name:            config.Name,
			MetricsProvider: config.MetricsProvider,
			Clock:           config.Clock,
			Group:           config.Group,
			MaxPerGroup:     config.MaxPerGroup,
			Debounce:        config.Debounce,
		}, true)
		return &delayingQueue[T]{Typed: t, retries: retries}
	case *Typed[T]: // exactly: a type that embeds one has methods of its own, to be called
		if inner.q.Join(config.Clock) {
			return &delayingQueue[T]{Typed: inner, retries: metrics.NewRetries(config.Name, config.MetricsProvider)}
		}
	}
	return newForeignDelaying[T](config.Queue, config.Clock, metrics.NewRetries(config.Name, config.MetricsProvider))
}

// TypedNewDelayingQueue returns a new, unnamed delaying queue.
//
// Deprecated: use NewTypedDelayingQueueWithConfig instead.
func TypedNewDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return NewTypedDelayingQueue[T]()
}

// NewDelayingQueue returns a new, unnamed delaying queue of any.
//
// Deprecated: use NewTypedDelayingQueue instead.
func NewDelayingQueue() DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{})
}

// NewDelayingQueueWithConfig returns a new delaying queue of any configured by config.
//
// Deprecated: use NewTypedDelayingQueueWithConfig instead.
func NewDelayingQueueWithConfig(config DelayingQueueConfig) DelayingInterface {
	return NewTypedDelayingQueueWithConfig(config)
}

// NewDelayingQueueWithCustomQueue returns a delaying queue named name that adds to q.
//
// Deprecated: use NewDelayingQueueWithConfig instead.
func NewDelayingQueueWithCustomQueue(q Interface, name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{Name: name, Queue: q})
}

// NewNamedDelayingQueue returns a new delaying queue of any named name.
//
// Deprecated: use NewDelayingQueueWithConfig instead.
func NewNamedDelayingQueue(name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{Name: name})
}

// NewDelayingQueueWithCustomClock returns a new delaying queue of any named name on clock.
//
// Deprecated: use NewDelayingQueueWithConfig instead.
func NewDelayingQueueWithCustomClock(clock Clock, name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{Name: name, Clock: clock})
}
