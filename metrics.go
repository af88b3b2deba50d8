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

// SetProvider sets the metrics provider of every queue created afterwards without one of its
// own. Only the first call has an effect.
func SetProvider(metricsProvider MetricsProvider) { metrics.SetProvider(metricsProvider) }
