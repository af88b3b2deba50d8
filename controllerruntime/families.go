package controllerruntime

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The help texts of controller-runtime's workqueue metrics (v0.25): a collector registers as
// the same one only with the same help text.
const (
	depthHelp      = "Current depth of workqueue by workqueue and priority"
	addsHelp       = "Total number of adds handled by workqueue"
	latencyHelp    = "How long in seconds an item stays in workqueue before being requested"
	workHelp       = "How long in seconds processing an item from workqueue takes."
	unfinishedHelp = "How many seconds of work has been done that is in progress and hasn't been " +
		"observed by work_duration. Large values indicate stuck threads. One can deduce the " +
		"number of stuck threads by observing the rate at which this increases."
	longestHelp = "How many seconds has the longest running processor for workqueue been running."
	retriesHelp = "Total number of items added to the workqueue with a non-zero delay " +
		"(rate-limited requeues, explicit RequeueAfter or AddAfter calls)"
	givenUpHelp = "Total number of items the workqueue gave up on after their maximum of " +
		"rate-limited requeues"
	debouncingHelp = "Current number of items of workqueue waiting out their debounce window, " +
		"not yet counted in its depth"
	absorbedHelp = "Total number of adds workqueue absorbed into the debounce window of an item " +
		"already waiting it out"
)

// The names of the counters and gauges controller-runtime does not have.
const (
	givenUpKey    = "given_up_total"
	debouncingKey = "debouncing"
	absorbedKey   = "debounced_adds_total"
)

// Every series has these labels, both set to the queue's name.
var labels = []string{"name", "controller"}

func newGauge(name, help string, extra ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: crmetrics.WorkQueueSubsystem, Name: name, Help: help,
	}, append(labels[:len(labels):len(labels)], extra...))
}

func newCounter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: crmetrics.WorkQueueSubsystem, Name: name, Help: help,
	}, labels)
}

// newHistogram returns a histogram with controller-runtime's buckets: 10 ns to 1000 s, a factor
// of ten apart, and native buckets 10% apart.
func newHistogram(name, help string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem:                       crmetrics.WorkQueueSubsystem,
		Name:                            name,
		Help:                            help,
		Buckets:                         prometheus.ExponentialBuckets(10e-9, 10, 12),
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}, labels)
}
