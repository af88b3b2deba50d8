package prometheus

// Option configures a [Provider] made by [NewProvider].
type Option func(*options)

// options are what the Options set. The zero value is the default: classic histograms only.
type options struct {
	native      bool // the duration histograms have native buckets too
	synchronous bool // queues record before Add, Get and Done return (see AsyncMetrics)
}

// WithNativeHistograms gives the two duration histograms (workqueue_queue_duration_seconds and
// workqueue_work_duration_seconds) native buckets besides client-go's classic ones, with the
// settings component-base uses when a component enables its NativeHistograms feature gate
// (each bucket at most 10% wider than the one before, at most 160 buckets). Only a scrape in
// Prometheus's protobuf format carries them; the text format shows the classic buckets alone.
func WithNativeHistograms() Option { return func(o *options) { o.native = true } }

// WithSynchronousMetrics makes queues record this provider's metrics before Add, Get and Done
// return, as client-go's queues do, at the cost of a round trip to the queue's goroutine in
// each of those calls (see [Provider.AsyncMetrics]). Use it where something reads the metrics
// right after a call (a test that scrapes after each Add), not for scraping.
func WithSynchronousMetrics() Option { return func(o *options) { o.synchronous = true } }
