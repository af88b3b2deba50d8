package controllerruntime

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/metrics"
)

// Provider records the metrics of named queues in controller-runtime's workqueue series:
// workqueue_depth{name,controller,priority}, and workqueue_adds_total,
// workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
// workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds and
// workqueue_retries_total with the labels name and controller, both set to the queue's name.
// It implements workqueue.MetricsProvider, metrics.PriorityProvider, metrics.AsyncProvider,
// metrics.GivenUpProvider (workqueue_given_up_total{name,controller}) and
// metrics.DebounceProvider (workqueue_debouncing{name,controller} and
// workqueue_debounced_adds_total{name,controller}, series that only a queue with a debounce
// window makes).
//
// Create it with [NewProvider]; the zero value is not usable. It is safe for simultaneous use.
type Provider struct {
	depth, unfinished, longest, debouncing *prometheus.GaugeVec
	adds, retries, givenUp, absorbed       *prometheus.CounterVec
	latency, work                          *prometheus.HistogramVec
}

var (
	_ workqueue.MetricsProvider = (*Provider)(nil)
	_ metrics.PriorityProvider  = (*Provider)(nil)
	_ metrics.AsyncProvider     = (*Provider)(nil)
	_ metrics.GivenUpProvider   = (*Provider)(nil)
	_ metrics.DebounceProvider  = (*Provider)(nil)
)

// NewDebouncingMetric returns the workqueue_debouncing gauge of the queue named name: the
// items waiting out their debounce window, not yet in the depth. controller-runtime has no
// such series. It implements metrics.DebounceProvider.
func (p *Provider) NewDebouncingMetric(name string) workqueue.SettableGaugeMetric {
	return p.debouncing.WithLabelValues(name, name)
}

// NewDebouncedAddsMetric returns the workqueue_debounced_adds_total counter of the queue named
// name: the adds that restarted the debounce window of an item already waiting it out, instead
// of leading to a reconcile of their own. It implements metrics.DebounceProvider.
func (p *Provider) NewDebouncedAddsMetric(name string) workqueue.CounterMetric {
	return p.absorbed.WithLabelValues(name, name)
}

// NewGivenUpMetric returns the workqueue_given_up_total counter of the queue named name, with
// the labels name and controller both set to name, as the other series: the items the queue
// gave up on after their maximum of rate-limited requeues (MaxRetries). controller-runtime has
// no such series; the provider registers it beside the others. It implements
// metrics.GivenUpProvider.
func (p *Provider) NewGivenUpMetric(name string) workqueue.CounterMetric {
	return p.givenUp.WithLabelValues(name, name)
}

// AsyncMetrics returns true: queues record these metrics in their own goroutine after Add, Get
// and Done return, sparing each call a round trip. controller-runtime's priority queue records
// asynchronously too (its adds pass through a goroutine of their own), so its users and tests
// already expect the series to lag a call by a moment. It implements metrics.AsyncProvider.
func (p *Provider) AsyncMetrics() bool { return true }

// registryProvider returns the provider of controller-runtime's registry, made once.
var registryProvider = sync.OnceValues(func() (*Provider, error) { return NewProvider(crmetrics.Registry) })

// NewProvider returns a provider whose metrics are in reg. controller-runtime registers its
// workqueue metrics in its own registry (crmetrics.Registry) as soon as it is linked in; the
// provider then uses those very collectors, so that its series and the ones of controller-
// runtime's queues are one family each, as if controller-runtime's queue had recorded them.
// In a registry without them, it registers its own, with the same names, help texts, labels
// and buckets. It returns an error if reg holds other metrics under one of these names.
//
// The depth of a priority queue gets a series per priority for the first 25 priorities the
// queue sees; the others share the series labelled priority="exceeded_cardinality_limit".
// (controller-runtime's queue moves every priority to that series once a 26th appears, so its
// earlier series stop moving.) A queue without priorities records its depth with priority="".
func NewProvider(reg prometheus.Registerer) (*Provider, error) {
	if v := reflect.ValueOf(reg); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, errors.New("workqueue: controllerruntime.NewProvider: nil registerer")
	}
	p := new(Provider)
	var err error
	if p.depth, err = adopt(reg, newGauge(crmetrics.DepthKey, depthHelp, "priority")); err != nil {
		return nil, err
	}
	if p.adds, err = adopt(reg, newCounter(crmetrics.AddsKey, addsHelp)); err != nil {
		return nil, err
	}
	if p.latency, err = adopt(reg, newHistogram(crmetrics.QueueLatencyKey, latencyHelp)); err != nil {
		return nil, err
	}
	if p.work, err = adopt(reg, newHistogram(crmetrics.WorkDurationKey, workHelp)); err != nil {
		return nil, err
	}
	if p.unfinished, err = adopt(reg, newGauge(crmetrics.UnfinishedWorkKey, unfinishedHelp)); err != nil {
		return nil, err
	}
	if p.longest, err = adopt(reg, newGauge(crmetrics.LongestRunningProcessorKey, longestHelp)); err != nil {
		return nil, err
	}
	if p.givenUp, err = adopt(reg, newCounter(givenUpKey, givenUpHelp)); err != nil {
		return nil, err
	}
	if p.debouncing, err = adopt(reg, newGauge(debouncingKey, debouncingHelp)); err != nil {
		return nil, err
	}
	if p.absorbed, err = adopt(reg, newCounter(absorbedKey, absorbedHelp)); err != nil {
		return nil, err
	}
	if p.retries, err = adopt(reg, newCounter(crmetrics.RetriesKey, retriesHelp)); err != nil {
		return nil, err
	}
	return p, nil
}

// adopt registers c in reg and returns it, or returns the collector reg already holds with c's
// descriptor.
func adopt[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
		return c, fmt.Errorf("the registry collects the same metric with a %T, not a %T", already.ExistingCollector, c)
	}
	return c, err
}

// NewDepthMetric returns the depth of the queue named name, with the label priority="": the
// series controller-runtime gives queues without priorities.
func (p *Provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.depth.WithLabelValues(name, name, "")
}

// NewDepthMetricWithPriority returns the depth of the priority queue named name, by priority.
// Each call makes the depth of one queue: queues of the same name share their series, but each
// has its own allowance of 25 priorities, as in controller-runtime.
func (p *Provider) NewDepthMetricWithPriority(name string) metrics.DepthMetricWithPriority {
	return newPriorityLabels(p.depth, name)
}

// NewAddsMetric returns the workqueue_adds_total counter of the queue named name.
func (p *Provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.adds.WithLabelValues(name, name)
}

// NewLatencyMetric returns the workqueue_queue_duration_seconds histogram of the queue named
// name: from add to hand-out, in seconds.
func (p *Provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.latency.WithLabelValues(name, name)
}

// NewWorkDurationMetric returns the workqueue_work_duration_seconds histogram of the queue
// named name: from hand-out to Done, in seconds.
func (p *Provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.work.WithLabelValues(name, name)
}

// NewUnfinishedWorkSecondsMetric returns the workqueue_unfinished_work_seconds gauge of the
// queue named name: the summed age of the items in processing, in seconds.
func (p *Provider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name, name)
}

// NewLongestRunningProcessorSecondsMetric returns the
// workqueue_longest_running_processor_seconds gauge of the queue named name: the age of the
// oldest item in processing, in seconds.
func (p *Provider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.longest.WithLabelValues(name, name)
}

// NewRetriesMetric returns the workqueue_retries_total counter of the queue named name: adds
// with a delay.
func (p *Provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.retries.WithLabelValues(name, name)
}
