package bench

import (
	workqueue "github.com/actorqueue/workqueue"
	aqprometheus "github.com/actorqueue/workqueue/prometheus"
)

// ActorQueue is this repository's library: its FIFO rate-limiting queue, client-go's drop-in
// replacement.
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
		NewNamed: func(name string, r Retry, sink Sink) Keyed[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](r.Base, r.Max),
				workqueue.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: actorQueueProvider(sink)})
		},
	}
}

// actorQueueProvider returns the provider of package workqueue that records into sink: this
// project's Prometheus provider for a registry.
func actorQueueProvider(sink Sink) workqueue.MetricsProvider {
	if sink.Atomic != nil {
		return sink.Atomic.ActorQueue()
	}
	if sink.Registry == nil {
		panic("bench: a Sink with neither atomic metrics nor a registry")
	}
	p, err := aqprometheus.NewProvider(sink.Registry)
	if err != nil {
		panic("bench: " + err.Error())
	}
	return p
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
