package bench

import (
	"math"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	clientgo "k8s.io/client-go/util/workqueue"

	workqueue "github.com/actorqueue/workqueue"
)

// Sink says where a named queue records its metrics. Set one field.
type Sink struct {
	// Atomic records into atomic counters and gauges: what any provider at least does.
	Atomic *AtomicMetrics
	// Registry, when set, makes each queue record real Prometheus metrics through its library's
	// own wiring, as its users get them: actorqueue's FIFO queue through this project's
	// prometheus module, in Registry; client-go's through component-base's provider
	// (k8s.io/component-base/metrics/prometheus/workqueue), in component-base's legacyregistry,
	// as a Kubernetes controller's queue does; the priority queues (actorqueue priority,
	// controller-runtime) in controller-runtime's registry, as a controller-runtime
	// controller's queue does. Only actorqueue's FIFO queue records in Registry itself.
	Registry *prometheus.Registry
}

// AtomicMetrics is a metrics provider whose metrics are atomic counters and gauges: the least
// work a provider that records does. Every queue given it records into the same fields. Its
// methods ActorQueue and ClientGo return it as each package's provider.
type AtomicMetrics struct {
	// Adds and Retries count the increments of the adds and retries counters.
	Adds, Retries atomic.Int64
	// Depth is the depth gauge: its increments less its decrements.
	Depth atomic.Int64
	// Latency is the queue-duration histogram (add to hand-out), Work the work-duration one
	// (hand-out to Done).
	Latency, Work AtomicHistogram
	// Unfinished and Longest hold the last value set on the unfinished-work and the
	// longest-running-processor gauges, as the bits of a float64 (math.Float64frombits), in
	// seconds.
	Unfinished, Longest atomic.Uint64
}

// AtomicHistogram is a histogram reduced to the count and the sum of its observations.
type AtomicHistogram struct {
	// Count is how many observations were made.
	Count atomic.Int64
	// SumNanos is their sum, in nanoseconds (observations are in seconds).
	SumNanos atomic.Int64
}

// Observe records v, in seconds.
func (h *AtomicHistogram) Observe(v float64) {
	h.Count.Add(1)
	h.SumNanos.Add(int64(v * 1e9))
}

// atomicCounter is a counter or a gauge on an atomic integer.
type atomicCounter struct{ v *atomic.Int64 }

func (c atomicCounter) Inc() { c.v.Add(1) }
func (c atomicCounter) Dec() { c.v.Add(-1) }

// atomicSettable is a settable gauge on the bits of a float64.
type atomicSettable struct{ v *atomic.Uint64 }

func (s atomicSettable) Set(v float64) { s.v.Store(math.Float64bits(v)) }

// ActorQueue returns m as a metrics provider of package github.com/actorqueue/workqueue.
func (m *AtomicMetrics) ActorQueue() workqueue.MetricsProvider { return actorQueueAtomic{m} }

// ClientGo returns m as a metrics provider of client-go's workqueue, which controller-runtime's
// priorityqueue takes too.
func (m *AtomicMetrics) ClientGo() clientgo.MetricsProvider { return clientGoAtomic{m} }

type actorQueueAtomic struct{ m *AtomicMetrics }

func (p actorQueueAtomic) NewDepthMetric(string) workqueue.GaugeMetric {
	return atomicCounter{&p.m.Depth}
}
func (p actorQueueAtomic) NewAddsMetric(string) workqueue.CounterMetric {
	return atomicCounter{&p.m.Adds}
}
func (p actorQueueAtomic) NewLatencyMetric(string) workqueue.HistogramMetric { return &p.m.Latency }
func (p actorQueueAtomic) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return &p.m.Work
}
func (p actorQueueAtomic) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return atomicSettable{&p.m.Unfinished}
}
func (p actorQueueAtomic) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return atomicSettable{&p.m.Longest}
}
func (p actorQueueAtomic) NewRetriesMetric(string) workqueue.CounterMetric {
	return atomicCounter{&p.m.Retries}
}

type clientGoAtomic struct{ m *AtomicMetrics }

func (p clientGoAtomic) NewDepthMetric(string) clientgo.GaugeMetric       { return atomicCounter{&p.m.Depth} }
func (p clientGoAtomic) NewAddsMetric(string) clientgo.CounterMetric      { return atomicCounter{&p.m.Adds} }
func (p clientGoAtomic) NewLatencyMetric(string) clientgo.HistogramMetric { return &p.m.Latency }
func (p clientGoAtomic) NewWorkDurationMetric(string) clientgo.HistogramMetric {
	return &p.m.Work
}
func (p clientGoAtomic) NewUnfinishedWorkSecondsMetric(string) clientgo.SettableGaugeMetric {
	return atomicSettable{&p.m.Unfinished}
}
func (p clientGoAtomic) NewLongestRunningProcessorSecondsMetric(string) clientgo.SettableGaugeMetric {
	return atomicSettable{&p.m.Longest}
}
func (p clientGoAtomic) NewRetriesMetric(string) clientgo.CounterMetric {
	return atomicCounter{&p.m.Retries}
}
