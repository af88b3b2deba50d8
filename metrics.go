package workqueue

import "github.com/actorqueue/workqueue/metrics"

// MetricsProvider creates the metrics of named queues.
type MetricsProvider = metrics.Provider

// GaugeMetric is a value that goes up and down.
type GaugeMetric = metrics.GaugeMetric

// SettableGaugeMetric is a value that is set.
type SettableGaugeMetric = metrics.SettableGaugeMetric

// CounterMetric is a value that only goes up.
type CounterMetric = metrics.CounterMetric

// SummaryMetric records observations.
type SummaryMetric = metrics.SummaryMetric

// HistogramMetric counts observations in buckets.
type HistogramMetric = metrics.HistogramMetric

// DepthMetricWithPriority is a queue depth by priority, as controller-runtime records it for
// its priority queue. A MetricsProvider that also has a method
// NewDepthMetricWithPriority(name string) DepthMetricWithPriority gives priority queues their
// depth by priority.
type DepthMetricWithPriority = metrics.DepthMetricWithPriority

// SetProvider sets the metrics provider of every queue created afterwards without one of its
// own. Only the first call has an effect.
func SetProvider(metricsProvider MetricsProvider) { metrics.SetProvider(metricsProvider) }

// AsyncMetricsProvider is implemented by a MetricsProvider whose metrics queues may record after
// Add, Get and Done return, in their own goroutine, rather than make each of those calls wait
// for it: a named queue then costs about what an unnamed one does. The metrics trail the calls
// by at most one turn of the queue's goroutine and measure from the instants of the calls; a
// metric that panics panics in the next caller that waits for an answer. Without it (or when
// AsyncMetrics returns false) the metrics are current when each call returns, as in client-go.
// The Prometheus and controller-runtime modules' providers implement it.
type AsyncMetricsProvider = metrics.AsyncProvider
