package bench

import (
	"github.com/prometheus/client_golang/prometheus"
	clientgo "k8s.io/client-go/util/workqueue"
)

// clientGoPrometheus is a client-go metrics provider on Prometheus collectors with the names,
// label and classic buckets that k8s.io/component-base/metrics/prometheus/workqueue gives
// client-go's queues (which it installs with the global, once-only SetProvider): the metrics a
// Kubernetes controller's named queue records. Each provider registers its own collectors in
// one registry.
type clientGoPrometheus struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

// newClientGoPrometheus registers the collectors in reg, which must not hold workqueue metrics
// yet, and returns the provider that records in them.
func newClientGoPrometheus(reg prometheus.Registerer) clientgo.MetricsProvider {
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: name, Help: help}, []string{"name"})
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: name, Help: help}, []string{"name"})
	}
	histogram := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: name, Help: help,
			Buckets: prometheus.ExponentialBuckets(10e-9, 10, 10)}, []string{"name"})
	}
	p := clientGoPrometheus{
		depth:      gauge("depth", "[BETA] Current depth of workqueue"),
		adds:       counter("adds_total", "[BETA] Total number of adds handled by workqueue"),
		latency:    histogram("queue_duration_seconds", "[BETA] How long in seconds an item stays in workqueue before being requested."),
		work:       histogram("work_duration_seconds", "[BETA] How long in seconds processing an item from workqueue takes."),
		unfinished: gauge("unfinished_work_seconds", "[BETA] How many seconds of work has done that is in progress and hasn't been observed by work_duration."),
		longest:    gauge("longest_running_processor_seconds", "[BETA] How many seconds has the longest running processor for workqueue been running."),
		retries:    counter("retries_total", "[BETA] Total number of retries handled by workqueue"),
	}
	reg.MustRegister(p.depth, p.adds, p.latency, p.work, p.unfinished, p.longest, p.retries)
	return p
}

func (p clientGoPrometheus) NewDepthMetric(name string) clientgo.GaugeMetric {
	return p.depth.WithLabelValues(name)
}
func (p clientGoPrometheus) NewAddsMetric(name string) clientgo.CounterMetric {
	return p.adds.WithLabelValues(name)
}
func (p clientGoPrometheus) NewLatencyMetric(name string) clientgo.HistogramMetric {
	return p.latency.WithLabelValues(name)
}
func (p clientGoPrometheus) NewWorkDurationMetric(name string) clientgo.HistogramMetric {
	return p.work.WithLabelValues(name)
}
func (p clientGoPrometheus) NewUnfinishedWorkSecondsMetric(name string) clientgo.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name)
}
func (p clientGoPrometheus) NewLongestRunningProcessorSecondsMetric(name string) clientgo.SettableGaugeMetric {
	return p.longest.WithLabelValues(name)
}
func (p clientGoPrometheus) NewRetriesMetric(name string) clientgo.CounterMetric {
	return p.retries.WithLabelValues(name)
}
