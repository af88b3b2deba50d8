package bench

import (
	workqueue "github.com/actorqueue/workqueue"
)

// ActorQueue is this repository's library.
func ActorQueue() Impl {
	return Impl{
		Name: "actorqueue",
		New: func(r Retry) Queue {
			return workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[int](r.Base, r.Max))
		},
		NewKind: newActorQueueKind,
		NewStringKeyed: func(r Retry) Keyed[string] {
			return workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](r.Base, r.Max))
		},
	}
}

func newActorQueueKind(k Kind) ShutDowner {
	limiter := func() workqueue.TypedRateLimiter[int] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[int](DefaultRetry.Base, DefaultRetry.Max)
	}
	switch k {
	case Plain:
		return workqueue.NewTyped[int]()
	case Delaying:
		return workqueue.NewTypedDelayingQueue[int]()
	case Named:
		return workqueue.NewTypedRateLimitingQueueWithConfig(limiter(), workqueue.TypedRateLimitingQueueConfig[int]{
			Name:            "bench",
			MetricsProvider: actorQueueDiscard{},
		})
	default:
		return workqueue.NewTypedRateLimitingQueue(limiter())
	}
}

// actorQueueDiscard is a metrics provider whose metrics record nothing. Unlike the default
// provider, it makes a named queue run its metrics code.
type actorQueueDiscard struct{}

func (actorQueueDiscard) NewDepthMetric(string) workqueue.GaugeMetric       { return discard{} }
func (actorQueueDiscard) NewAddsMetric(string) workqueue.CounterMetric      { return discard{} }
func (actorQueueDiscard) NewLatencyMetric(string) workqueue.HistogramMetric { return discard{} }
func (actorQueueDiscard) NewRetriesMetric(string) workqueue.CounterMetric   { return discard{} }
func (actorQueueDiscard) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return discard{}
}
func (actorQueueDiscard) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return discard{}
}
func (actorQueueDiscard) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return discard{}
}

// discard is a metric of every type that records nothing.
type discard struct{}

func (discard) Inc()            {}
func (discard) Dec()            {}
func (discard) Set(float64)     {}
func (discard) Observe(float64) {}
