package prometheus

import "github.com/prometheus/client_golang/prometheus"

// The names, help texts and buckets of client-go's workqueue metrics, as
// k8s.io/component-base/metrics/prometheus/workqueue exposes them. It declares them stable at
// beta, so their help texts start with "[BETA] ", and a registry serving both sets of metrics
// (Gatherers, say) finds the two the same.
const (
	subsystem = "workqueue"
	beta      = "[BETA] "

	depthHelp      = beta + "Current depth of workqueue"
	addsHelp       = beta + "Total number of adds handled by workqueue"
	latencyHelp    = beta + "How long in seconds an item stays in workqueue before being requested."
	workHelp       = beta + "How long in seconds processing an item from workqueue takes."
	unfinishedHelp = beta + "How many seconds of work has done that is in progress and hasn't been " +
		"observed by work_duration. Large values indicate stuck threads. One can deduce the " +
		"number of stuck threads by observing the rate at which this increases."
	longestHelp = beta + "How many seconds has the longest running processor for workqueue been running."
	retriesHelp = beta + "Total number of retries handled by workqueue"

	delayedHelp = "Current number of items in the delay heap of workqueue, waiting for their " +
		"delay to pass before being added."
	priorityHelp   = "Current depth of workqueue by priority, for priority queues."
	givenUpHelp    = "Total number of items workqueue gave up on after their maximum of rate-limited requeues."
	debouncingHelp = "Current number of items of workqueue waiting out their debounce window, not yet " +
		"counted in its depth."
	absorbedHelp = "Total number of adds workqueue absorbed into the debounce window of an item already " +
		"waiting it out."
)

// durationBuckets are client-go's buckets for both duration histograms: 10ns to 10s, a factor
// of ten apart.
func durationBuckets() []float64 { return prometheus.ExponentialBuckets(10e-9, 10, 10) }

func newGauge(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: name, Help: help}, labels)
}

func newCounter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: name, Help: help}, []string{"name"})
}

// The settings of component-base's native histograms: each bucket at most 10% wider than the
// one before, and at most 160 buckets.
const (
	nativeBucketFactor = 1.1
	nativeMaxBuckets   = 160
)

// newHistogram makes a histogram with client-go's classic buckets and, if native, native
// buckets as well, as component-base makes them.
func newHistogram(name, help string, native bool) *prometheus.HistogramVec {
	opts := prometheus.HistogramOpts{Subsystem: subsystem, Name: name, Help: help, Buckets: durationBuckets()}
	if native {
		opts.NativeHistogramBucketFactor = nativeBucketFactor
		opts.NativeHistogramMaxBucketNumber = nativeMaxBuckets
	}
	return prometheus.NewHistogramVec(opts, []string{"name"})
}
