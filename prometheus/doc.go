// Package prometheus records the metrics of actorqueue's work queues in Prometheus, under the
// names, labels, help texts and buckets of client-go's workqueue metrics as
// k8s.io/component-base/metrics/prometheus/workqueue exposes them, so that dashboards and alerts
// written for Kubernetes controllers keep working:
//
//	workqueue_depth{name}                              gauge
//	workqueue_adds_total{name}                         counter
//	workqueue_queue_duration_seconds{name}             histogram, seconds
//	workqueue_work_duration_seconds{name}              histogram, seconds
//	workqueue_unfinished_work_seconds{name}            gauge, seconds
//	workqueue_longest_running_processor_seconds{name}  gauge, seconds
//	workqueue_retries_total{name}                      counter
//
// Five more, which client-go does not have, are recorded by queues that ask for them through
// the optional interfaces of package github.com/actorqueue/workqueue/metrics:
//
//	workqueue_delayed_depth{name}                      gauge: items waiting in the delay heap
//	workqueue_depth_by_priority{name,priority}         gauge: depth of a priority queue
//	workqueue_given_up_total{name}                     counter: items given up on (MaxRetries)
//	workqueue_debouncing{name}                         gauge: items waiting out a debounce window
//	workqueue_debounced_adds_total{name}               counter: adds absorbed into a window
//
// The last two exist only for queues with a debounce window (the Debounce option).
//
// Create a [Provider] with [NewProvider], which registers these metrics in the
// prometheus.Registerer of your choice, and hand it to the queues (a config's MetricsProvider)
// or to all of them at once (workqueue.SetProvider).
//
// The metrics are plain Prometheus ones, not component-base's: the histograms have classic
// buckets only, unless the provider is made with [WithNativeHistograms] (component-base adds
// native ones when a component enables its NativeHistograms feature gate, which this package
// cannot read), and component-base's --disabled-metrics does not hide them. Register the
// provider in a registry of your own rather than component-base's legacyregistry if the binary
// may still build named client-go queues: component-base registers its own workqueue metrics
// there at the first one, and panics on the names this provider took.
//
// This package is a module of its own, so that the workqueue module does not depend on
// Prometheus.
package prometheus
