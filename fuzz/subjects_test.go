package fuzz

import (
	"github.com/actorqueue/workqueue"
)

// level is how much of the rate-limiting queue's interface a kind of queue has.
type level int

const (
	plain        level = iota // TypedInterface
	delaying                  // TypedDelayingInterface
	rateLimiting              // TypedRateLimitingInterface
)

// callsOf returns how many kinds of call a queue of level l takes: the queue targets number
// their calls so that a level's calls come first (8 for any queue, then AddAfter, then
// AddRateLimited, Forget and NumRequeues).
func callsOf(l level) int { return []int{plain: 8, delaying: 9, rateLimiting: 12}[l] }

// subject is one way to build a queue through the root package. Every way the package
// offers to build a queue runs different code: read ahead or not, waiting for the owner or
// not, one goroutine or two, the limiter in the owner or behind a mutex.
type subject[T comparable] struct {
	name  string
	level level
	build func(workqueue.TypedRateLimiter[T]) workqueue.TypedInterface[T]
	// ticks is set for a queue with metrics: it wakes every 500ms while an item is in
	// processing, so long sleeps cost millions of wake-ups.
	ticks bool
	// asks is set for a queue that reserves an item only when a getter asks for it (one with
	// a storage of another package, as the actor package documents): the OldestInFlight of
	// its Snapshot counts from the take.
	asks bool
}

// subjects returns every way to build a queue of T.
func subjects[T comparable]() []subject[T] {
	type queue = workqueue.TypedInterface[T]
	type limiter = workqueue.TypedRateLimiter[T]
	return []subject[T]{{
		name: "NewTyped", level: plain,
		build: func(limiter) queue { return workqueue.NewTyped[T]() },
	}, {
		name: "NewTypedWithConfig(custom storage)", level: plain, asks: true,
		build: func(limiter) queue {
			return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[T]{Queue: new(sliceStorage[T])})
		},
	}, {
		name: "NewTypedWithConfig(metrics)", level: plain, ticks: true,
		build: func(limiter) queue {
			return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[T]{Name: "fuzz", MetricsProvider: quietMetrics{}})
		},
	}, {
		name: "NewTypedDelayingQueue", level: delaying,
		build: func(limiter) queue { return workqueue.NewTypedDelayingQueue[T]() },
	}, {
		name: "NewTypedDelayingQueueWithConfig(queue of this package)", level: delaying,
		build: func(limiter) queue {
			return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{Queue: workqueue.NewTyped[T]()})
		},
	}, {
		name: "NewTypedDelayingQueueWithConfig(foreign queue)", level: delaying,
		build: func(limiter) queue {
			return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{Queue: foreign[T]{workqueue.NewTyped[T]()}})
		},
	}, {
		name: "NewTypedRateLimitingQueue", level: rateLimiting,
		build: func(l limiter) queue { return workqueue.NewTypedRateLimitingQueue(l) },
	}, {
		name: "NewTypedRateLimitingQueueWithConfig(metrics)", level: rateLimiting, ticks: true,
		build: func(l limiter) queue {
			return workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[T]{Name: "fuzz", MetricsProvider: quietMetrics{}})
		},
	}, {
		name: "NewTypedRateLimitingQueueWithConfig(foreign delaying queue)", level: rateLimiting,
		build: func(l limiter) queue {
			return workqueue.NewTypedRateLimitingQueueWithConfig(l, workqueue.TypedRateLimitingQueueConfig[T]{
				DelayingQueue: foreignDelaying[T]{workqueue.NewTypedDelayingQueue[T]()},
			})
		},
	}}
}

// foreign hides that a queue comes from this package, as a queue of another package would
// look: only the interface's methods are promoted.
type foreign[T comparable] struct{ workqueue.TypedInterface[T] }

// foreignDelaying is foreign for a delaying queue.
type foreignDelaying[T comparable] struct {
	workqueue.TypedDelayingInterface[T]
}

// sliceStorage is a first-in-first-out storage of another package: a queue given it does not
// read ahead and makes callers wait for every command.
type sliceStorage[T comparable] struct{ items []T }

func (s *sliceStorage[T]) Touch(T)     {}
func (s *sliceStorage[T]) Push(item T) { s.items = append(s.items, item) }
func (s *sliceStorage[T]) Len() int    { return len(s.items) }
func (s *sliceStorage[T]) Pop() (item T) {
	item, s.items = s.items[0], s.items[1:]
	return item
}

// quietMetrics is a metrics provider that records nothing; a queue given it still runs its
// metrics code, and makes callers wait for every command.
type quietMetrics struct{}

type quietMetric struct{}

func (quietMetric) Inc()            {}
func (quietMetric) Dec()            {}
func (quietMetric) Set(float64)     {}
func (quietMetric) Observe(float64) {}

func (quietMetrics) NewDepthMetric(string) workqueue.GaugeMetric       { return quietMetric{} }
func (quietMetrics) NewAddsMetric(string) workqueue.CounterMetric      { return quietMetric{} }
func (quietMetrics) NewLatencyMetric(string) workqueue.HistogramMetric { return quietMetric{} }
func (quietMetrics) NewRetriesMetric(string) workqueue.CounterMetric   { return quietMetric{} }
func (quietMetrics) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return quietMetric{}
}
func (quietMetrics) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return quietMetric{}
}
func (quietMetrics) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return quietMetric{}
}
