// Package metrics records the seven workqueue metrics of client-go through a [Provider]: depth,
// adds, queue latency, work duration, unfinished work, longest running processor and retries.
//
// A queue records its metrics in its owner goroutine, with the instant as an argument (the
// retries counter excepted: see Provider); no metrics goroutine runs beside it. The metric
// interfaces and the provider have client-go's methods, so the source of a provider written for
// client-go (Prometheus, OpenTelemetry, a test fake) compiles here once its import of
// client-go's workqueue names this module instead. A compiled client-go provider does not plug
// in: its methods return client-go's named metric types, which are not these. (Package
// k8s.io/component-base/metrics/prometheus/workqueue, for one, registers with client-go's
// SetProvider only; this module's prometheus module stands in for it.)
package metrics

import (
	"sync"
	"sync/atomic"
)

// GaugeMetric is a value that goes up and down.
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric is a value that is set.
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric is a value that only goes up.
type CounterMetric interface {
	Inc()
}

// SummaryMetric records observations.
type SummaryMetric interface {
	Observe(float64)
}

// HistogramMetric counts observations in buckets.
type HistogramMetric interface {
	Observe(float64)
}

// Provider creates the metrics of a named queue. Each method is called once per queue, when the
// queue is created, with the queue's name. A queue then calls the metrics from its owner
// goroutine only (or, after shutdown, from one caller at a time), but for the retries counter:
// AddAfter and AddRateLimited count a retry in the caller's goroutine, as client-go does, so
// that counter must be safe for concurrent use, and may call the queue. (A priority queue's
// counts from its owner goroutine, as controller-runtime's counts under its lock.)
type Provider interface {
	NewDepthMetric(name string) GaugeMetric
	NewAddsMetric(name string) CounterMetric
	NewLatencyMetric(name string) HistogramMetric
	NewWorkDurationMetric(name string) HistogramMetric
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	NewRetriesMetric(name string) CounterMetric
}

// noop is the provider in effect until SetProvider is called: it records nothing, and a queue
// that finds it records no queue metrics at all.
type noop struct{}

type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Dec()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

func (noop) NewDepthMetric(string) GaugeMetric                                  { return noopMetric{} }
func (noop) NewAddsMetric(string) CounterMetric                                 { return noopMetric{} }
func (noop) NewLatencyMetric(string) HistogramMetric                            { return noopMetric{} }
func (noop) NewWorkDurationMetric(string) HistogramMetric                       { return noopMetric{} }
func (noop) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric          { return noopMetric{} }
func (noop) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric { return noopMetric{} }
func (noop) NewRetriesMetric(string) CounterMetric                              { return noopMetric{} }

var (
	global    atomic.Pointer[provider] // nil until SetProvider
	setGlobal sync.Once
)

// provider is the argument of the first SetProvider, nil included.
type provider struct{ Provider }

// SetProvider sets the provider of every queue created afterwards without one of its own. Only
// the first call has an effect; it is safe for simultaneous use.
func SetProvider(p Provider) {
	setGlobal.Do(func() { global.Store(&provider{p}) })
}

// Global returns the provider set by SetProvider, or the no-op provider before any call. It
// returns nil after SetProvider(nil): client-go then fails to make the metrics of every named
// queue created without a provider of its own, and so do the queues here (see New).
func Global() Provider {
	if p := global.Load(); p != nil {
		return p.Provider
	}
	return noop{}
}

// IsNoop reports whether p is the no-op provider in effect before SetProvider.
func IsNoop(p Provider) bool {
	_, ok := p.(noop)
	return ok
}

// DelayedProvider is implemented by providers that also record how many items wait in a
// queue's delay heap (added with AddAfter or AddRateLimited and not yet due), a gauge client-go
// does not have. A queue asks for it, once, when its provider implements this interface.
type DelayedProvider interface {
	NewDelayedMetric(name string) SettableGaugeMetric
}

// DebounceProvider is implemented by providers that also record the two metrics of a queue that
// debounces its adds (the Debounce option of the workqueue configs), which client-go does not
// have: a gauge of the items waiting out their debounce window, not yet counted in the depth,
// and a counter of the adds absorbed, each an add of an item already waiting out its window,
// which restarted that window instead of leading to a processing of its own. A queue asks for
// them once, when it is created, and only if it debounces, so a queue without the option shows
// neither. It records them in its owner goroutine.
type DebounceProvider interface {
	NewDebouncingMetric(name string) SettableGaugeMetric
	NewDebouncedAddsMetric(name string) CounterMetric
}

// DepthMetricWithPriority is a queue depth broken down by priority, as controller-runtime's
// priority queue records it.
type DepthMetricWithPriority interface {
	Inc(priority int)
	Dec(priority int)
}

// PriorityProvider is implemented by providers that record the depth of a priority queue by
// priority. A priority queue whose provider implements it records its depth there instead of
// in NewDepthMetric's gauge.
type PriorityProvider interface {
	NewDepthMetricWithPriority(name string) DepthMetricWithPriority
}

// AsyncProvider is implemented by providers whose metrics a queue may record after the call
// that changed them has returned. By default a queue with metrics makes Add, Get and Done wait
// for its owner goroutine, so that the metrics are current when they return, as client-go's
// are (its tests read a fake metric right after Add); that round trip is most of the cost of
// a named queue. A provider whose AsyncMetrics returns true lets those calls return at once:
// the owner records each change in order, at most one turn of its goroutine later. A FIFO queue
// records them with the instants the callers saw (a Get's queue latency ends when it took the
// item, not when the owner heard of it); a priority queue with the instants its goroutine
// applies them, as controller-runtime's records its adds. A metric that panics then panics in the next caller that waits for an
// answer (NumRequeues, ShutDown) instead of in the caller whose call it recorded. Scraped
// metrics, such as Prometheus's, lose nothing by it.
type AsyncProvider interface {
	// AsyncMetrics reports whether queues may record this provider's metrics asynchronously.
	// A queue asks once, when it is created.
	AsyncMetrics() bool
}
