package prometheus

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/metrics"
)

// Provider creates the Prometheus metrics of named queues. It implements
// workqueue.MetricsProvider and the optional metrics.DelayedProvider, metrics.PriorityProvider
// and metrics.GivenUpProvider, and it is the prometheus.Collector of all its metrics.
//
// Queues that share a name share their series, as with client-go's provider: their depths and
// counts add up, and the unfinished-work gauges show whichever queue set them last. Give each
// queue its own name.
//
// Create it with [NewProvider]; the zero value is not usable. It is safe for simultaneous use.
type Provider struct {
	depth, unfinished, longest, delayed, byPriority, debouncing *prometheus.GaugeVec
	adds, retries, givenUp, absorbed                            *prometheus.CounterVec
	latency, work                                               *prometheus.HistogramVec

	mu         sync.Mutex
	priorities map[string]*priorityLabels // by queue name

	synchronous bool // see WithSynchronousMetrics
}

var (
	_ workqueue.MetricsProvider = (*Provider)(nil)
	_ metrics.DelayedProvider   = (*Provider)(nil)
	_ metrics.PriorityProvider  = (*Provider)(nil)
	_ metrics.AsyncProvider     = (*Provider)(nil)
	_ metrics.GivenUpProvider   = (*Provider)(nil)
	_ metrics.DebounceProvider  = (*Provider)(nil)
	_ prometheus.Collector      = (*Provider)(nil)
)

// NewProvider returns a provider whose metrics are registered in reg; pass
// prometheus.DefaultRegisterer for the global registry, or a registry of your own. If reg already
// holds the metrics of a provider from this package, NewProvider returns that provider, so the
// series of a name stay one (and its options stay those it was made with). It returns an error
// if reg holds other metrics under the same names (controller-runtime's or component-base's
// workqueue metrics, for example), and panics if reg or an option is nil.
func NewProvider(reg prometheus.Registerer, opts ...Option) (*Provider, error) {
	if reg == nil {
		panic("workqueue: NewProvider: nil prometheus.Registerer")
	}
	var o options
	for _, opt := range opts {
		if opt == nil {
			panic("workqueue: NewProvider: nil Option")
		}
		opt(&o)
	}
	p := &Provider{
		depth:      newGauge("depth", depthHelp, "name"),
		adds:       newCounter("adds_total", addsHelp),
		latency:    newHistogram("queue_duration_seconds", latencyHelp, o.native),
		work:       newHistogram("work_duration_seconds", workHelp, o.native),
		unfinished: newGauge("unfinished_work_seconds", unfinishedHelp, "name"),
		longest:    newGauge("longest_running_processor_seconds", longestHelp, "name"),
		retries:    newCounter("retries_total", retriesHelp),
		givenUp:    newCounter("given_up_total", givenUpHelp),
		debouncing: newGauge("debouncing", debouncingHelp, "name"),
		absorbed:   newCounter("debounced_adds_total", absorbedHelp),
		delayed:    newGauge("delayed_depth", delayedHelp, "name"),
		byPriority: newGauge("depth_by_priority", priorityHelp, "name", "priority"),
		priorities: make(map[string]*priorityLabels),

		synchronous: o.synchronous,
	}
	err := reg.Register(p)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(*Provider); ok {
			return existing, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// AsyncMetrics reports whether queues may record p's metrics after Add, Get and Done return,
// which spares each of those calls a round trip to the queue's goroutine: true unless p was
// made WithSynchronousMetrics. A queue records each change at most one turn of its goroutine
// later, with the instants its callers saw, so a scrape sees what it would have seen a few
// microseconds earlier or later. It implements metrics.AsyncProvider.
func (p *Provider) AsyncMetrics() bool { return !p.synchronous }

func (p *Provider) collectors() []prometheus.Collector {
	return []prometheus.Collector{
		p.depth, p.adds, p.latency, p.work, p.unfinished, p.longest, p.retries, p.delayed, p.byPriority,
		p.givenUp, p.debouncing, p.absorbed,
	}
}

// Describe sends the descriptors of the provider's twelve metrics to ch.
func (p *Provider) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range p.collectors() {
		c.Describe(ch)
	}
}

// Collect sends the current series of the provider's metrics to ch.
func (p *Provider) Collect(ch chan<- prometheus.Metric) {
	for _, c := range p.collectors() {
		c.Collect(ch)
	}
}

// NewDepthMetric returns the workqueue_depth gauge of the queue named name.
func (p *Provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.depth.WithLabelValues(name)
}

// NewAddsMetric returns the workqueue_adds_total counter of the queue named name.
func (p *Provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.adds.WithLabelValues(name)
}

// NewLatencyMetric returns the workqueue_queue_duration_seconds histogram of the queue named
// name: how long items wait between being added and being handed out, in seconds.
func (p *Provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.latency.WithLabelValues(name)
}

// NewWorkDurationMetric returns the workqueue_work_duration_seconds histogram of the queue named
// name: how long items are processed, from Get to Done, in seconds.
func (p *Provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.work.WithLabelValues(name)
}

// NewUnfinishedWorkSecondsMetric returns the workqueue_unfinished_work_seconds gauge of the
// queue named name: the summed age of the items in processing, in seconds.
func (p *Provider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name)
}

// NewLongestRunningProcessorSecondsMetric returns the
// workqueue_longest_running_processor_seconds gauge of the queue named name: the age of the
// oldest item in processing, in seconds.
func (p *Provider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.longest.WithLabelValues(name)
}

// NewRetriesMetric returns the workqueue_retries_total counter of the queue named name.
func (p *Provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.retries.WithLabelValues(name)
}

// NewGivenUpMetric returns the workqueue_given_up_total counter of the queue named name: the
// items it gave up on after their maximum of rate-limited requeues. It implements
// metrics.GivenUpProvider.
func (p *Provider) NewGivenUpMetric(name string) workqueue.CounterMetric {
	return p.givenUp.WithLabelValues(name)
}

// NewDebouncingMetric returns the queue's share of the workqueue_debouncing gauge of its name
// name: how many items wait out their debounce window, not yet in the depth. Only a queue with
// a debounce window asks for it. It implements metrics.DebounceProvider.
func (p *Provider) NewDebouncingMetric(name string) workqueue.SettableGaugeMetric {
	return &share{series: p.debouncing.WithLabelValues(name)}
}

// NewDebouncedAddsMetric returns the workqueue_debounced_adds_total counter of the queue named
// name: the adds that restarted the debounce window of an item already waiting it out, instead
// of leading to a processing of their own. It implements metrics.DebounceProvider.
func (p *Provider) NewDebouncedAddsMetric(name string) workqueue.CounterMetric {
	return p.absorbed.WithLabelValues(name)
}

// NewDelayedMetric returns the queue's share of the workqueue_delayed_depth gauge of its name
// name: how many items wait in its delay heap, added with AddAfter or AddRateLimited and not
// yet due. Queues of the same name share the series, which counts the items of them all.
func (p *Provider) NewDelayedMetric(name string) workqueue.SettableGaugeMetric {
	return &share{series: p.delayed.WithLabelValues(name)}
}

// share is one queue's part of a gauge that queues of one name share. The queue sets its own
// count, and the series moves by the change, so that each queue's count adds to the others'
// as the depth does (whose queues move it with Inc and Dec). A queue sets it from one goroutine
// at a time.
type share struct {
	series prometheus.Gauge
	last   float64
}

func (s *share) Set(v float64) {
	s.series.Add(v - s.last)
	s.last = v
}
