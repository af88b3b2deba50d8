package bench

import (
	"k8s.io/client-go/util/workqueue"
)

// ClientGo is k8s.io/client-go/util/workqueue v0.37.2.
func ClientGo() Impl {
	return Impl{
		Name: "client-go",
		New: func(r Retry) Queue {
			return workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[int](r.Base, r.Max))
		},
		NewKind: newClientGoKind,
		NewStringKeyed: func(r Retry) Keyed[string] {
			return workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](r.Base, r.Max))
		},
		NewNamed: func(name string, r Retry, sink Sink) Keyed[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](r.Base, r.Max),
				workqueue.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: clientGoProvider(sink)})
		},
	}
}

// clientGoProvider returns the client-go provider that records into sink: for Prometheus,
// component-base's (see componentBase), which records in its legacyregistry, not in
// sink.Registry.
func clientGoProvider(sink Sink) workqueue.MetricsProvider {
	if sink.Atomic != nil {
		return sink.Atomic.ClientGo()
	}
	if sink.Registry == nil {
		panic("bench: a Sink with neither atomic metrics nor a registry")
	}
	return componentBase()
}

func newClientGoKind(k Kind) ShutDowner {
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
			MetricsProvider: clientGoDiscard{},
		})
	default:
		return workqueue.NewTypedRateLimitingQueue(limiter())
	}
}

// clientGoDiscard is a metrics provider whose metrics record nothing. client-go records no
// metrics at all with its default provider; any other provider makes a named queue run its
// metrics code, including the goroutine that updates the unfinished-work gauges.
type clientGoDiscard struct{}

func (clientGoDiscard) NewDepthMetric(string) workqueue.GaugeMetric       { return discard{} }
func (clientGoDiscard) NewAddsMetric(string) workqueue.CounterMetric      { return discard{} }
func (clientGoDiscard) NewLatencyMetric(string) workqueue.HistogramMetric { return discard{} }
func (clientGoDiscard) NewRetriesMetric(string) workqueue.CounterMetric   { return discard{} }
func (clientGoDiscard) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return discard{}
}
func (clientGoDiscard) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return discard{}
}
func (clientGoDiscard) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return discard{}
}
