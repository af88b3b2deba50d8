package metrics

import (
	"fmt"
	"time"
)

// Queue records the metrics of one queue. It is plain single-goroutine code: every method takes
// the current instant. A nil *Queue records nothing, so a queue without metrics can call it
// unconditionally; [Queue.Enabled] tells whether reading the clock is worth it.
//
// The instants of each item's add and start are kept by the queue's core for a FIFO queue (see
// queue.State.TrackInstants), which hands them in with its events ([Event.Since]); for a
// priority queue (Config.Priority), in two maps here.
type Queue[T comparable] struct {
	depth      GaugeMetric             // nil when depthBy is used
	depthBy    DepthMetricWithPriority // the depth by priority, for a priority queue that has it
	retries    CounterMetric           // counted here for a priority queue only
	adds       CounterMetric
	latency    HistogramMetric
	work       HistogramMetric
	unfinished SettableGaugeMetric
	longest    SettableGaugeMetric
	delayed    SettableGaugeMetric // nil unless the provider offers it and the queue delays
	debouncing SettableGaugeMetric // nil unless the provider offers it and the queue debounces
	absorbed   CounterMetric       // likewise

	async  bool            // the provider lets the queue record after a call returns
	kept   bool            // the maps below keep the instants: a priority queue's
	name   string          // the queue's name, for a delayed gauge asked for later
	offers DelayedProvider // the provider, when it offers the delayed gauge

	addedAt   map[T]time.Time // when each waiting item was first added
	startedAt map[T]time.Time // when each item being processed was handed out
}

// Config chooses a queue's metrics the way client-go does.
type Config struct {
	// Name names the queue. An unnamed queue records nothing.
	Name string
	// Provider creates the metrics; nil means the global provider (see SetProvider).
	Provider Provider
	// Delayed asks for the gauge of items waiting in the delay heap, from a provider that
	// implements DelayedProvider; it makes sense for delaying and rate-limiting queues.
	Delayed bool
	// Priority makes the metrics of a priority queue, as controller-runtime's: the depth by
	// priority from a provider that implements PriorityProvider (the plain depth otherwise),
	// and the retries counter, which a priority queue counts in its owner.
	Priority bool
	// Debounce asks for the metrics of a queue that debounces its adds, from a provider that
	// implements DebounceProvider: the items waiting out a window and the adds absorbed.
	Debounce bool
}

// New creates the six metrics of a queue, or returns nil when it records none: when it has no
// name or its provider is the no-op one, as in client-go. (The retries counter of delaying
// queues is apart: see NewRetries.) The provider is asked in the order client-go asks it, or,
// for a priority queue, controller-runtime. New panics, naming the queue, if the provider
// returns a nil metric or SetProvider(nil) left none.
func New[T comparable](c Config) *Queue[T] {
	if c.Name == "" {
		return nil
	}
	p := providerOf(c.Name, c.Provider)
	if IsNoop(p) {
		return nil
	}
	m := &Queue[T]{}
	if c.Priority {
		m.kept, m.addedAt, m.startedAt = true, make(map[T]time.Time), make(map[T]time.Time)
	}
	if !c.Priority {
		m.depth = made(p.NewDepthMetric(c.Name), "NewDepthMetric", c.Name)
	}
	m.adds = made(p.NewAddsMetric(c.Name), "NewAddsMetric", c.Name)
	m.latency = made(p.NewLatencyMetric(c.Name), "NewLatencyMetric", c.Name)
	m.work = made(p.NewWorkDurationMetric(c.Name), "NewWorkDurationMetric", c.Name)
	m.unfinished = made(p.NewUnfinishedWorkSecondsMetric(c.Name), "NewUnfinishedWorkSecondsMetric", c.Name)
	m.longest = made(p.NewLongestRunningProcessorSecondsMetric(c.Name), "NewLongestRunningProcessorSecondsMetric", c.Name)
	if c.Priority {
		m.retries = made(p.NewRetriesMetric(c.Name), "NewRetriesMetric", c.Name)
		if pp, ok := p.(PriorityProvider); ok {
			m.depthBy = made(pp.NewDepthMetricWithPriority(c.Name), "NewDepthMetricWithPriority", c.Name)
		} else {
			m.depth = made(p.NewDepthMetric(c.Name), "NewDepthMetric", c.Name)
		}
	}
	if a, ok := p.(AsyncProvider); ok {
		m.async = a.AsyncMetrics()
	}
	if d, ok := p.(DebounceProvider); ok && c.Debounce {
		m.debouncing = made(d.NewDebouncingMetric(c.Name), "NewDebouncingMetric", c.Name)
		m.absorbed = made(d.NewDebouncedAddsMetric(c.Name), "NewDebouncedAddsMetric", c.Name)
	}
	if d, ok := p.(DelayedProvider); ok {
		m.name, m.offers = c.Name, d
		if c.Delayed {
			m.TrackDelayed()
		}
	}
	return m
}

// providerOf returns p, or the global provider when p is nil; it panics, naming the queue, if
// SetProvider(nil) left no global provider.
func providerOf(queue string, p Provider) Provider {
	if p == nil {
		p = Global()
	}
	if p == nil {
		panic(fmt.Sprintf("workqueue: queue %q has no metrics provider: SetProvider was given nil", queue))
	}
	return p
}

// made returns metric, the result of the provider's method for queue, or panics if it is nil:
// at construction, rather than where client-go would fail, at the metric's first use.
func made[M any](metric M, method, queue string) M {
	if any(metric) == nil {
		panic(fmt.Sprintf("workqueue: queue %q: the metrics provider's %s returned nil", queue, method))
	}
	return metric
}

// TrackDelayed creates the gauge of items in the delay heap, when the provider offers it and it
// does not exist yet: for a queue made without delays that a delaying queue now wraps.
func (m *Queue[T]) TrackDelayed() {
	if m != nil && m.offers != nil && m.delayed == nil {
		m.delayed = m.offers.NewDelayedMetric(m.name)
	}
}

// Enabled reports whether m records anything; the caller may skip reading the clock if not.
func (m *Queue[T]) Enabled() bool { return m != nil }

// Async reports whether m's provider lets the queue record after a call returns (see
// AsyncProvider); false when m records nothing.
func (m *Queue[T]) Async() bool { return m != nil && m.async }

// Added records that item, of priority (zero for a FIFO queue), became pending at now.
func (m *Queue[T]) Added(item T, priority int, now time.Time) {
	if !m.Enabled() {
		return
	}
	m.adds.Inc()
	m.incDepth(priority)
	if _, ok := m.addedAt[item]; m.kept && !ok {
		m.addedAt[item] = now
	}
}

// Started records that item, of priority, was handed out at now.
func (m *Queue[T]) Started(item T, priority int, now time.Time) {
	m.started(item, priority, time.Time{}, now)
}

// started records that item, of priority, added at added (zero: as kept here), was handed
// out at now.
func (m *Queue[T]) started(item T, priority int, added, now time.Time) {
	if !m.Enabled() {
		return
	}
	m.decDepth(priority)
	if m.kept {
		m.startedAt[item] = now
		var ok bool
		if added, ok = m.addedAt[item]; ok {
			delete(m.addedAt, item)
		}
	}
	if !added.IsZero() {
		m.latency.Observe(now.Sub(added).Seconds())
	}
}

// Returned records that item, handed out at some point, went back to the queue unprocessed at
// now (its getter panicked instead): it counts in the depth again and no longer as in
// processing, and its wait counts from now.
func (m *Queue[T]) Returned(item T, priority int, now time.Time) {
	if !m.Enabled() {
		return
	}
	if m.kept {
		delete(m.startedAt, item)
		if _, ok := m.addedAt[item]; !ok {
			m.addedAt[item] = now
		}
	}
	m.incDepth(priority)
}

// Finished records that the processing of item ended at now.
func (m *Queue[T]) Finished(item T, now time.Time) { m.finished(item, time.Time{}, now) }

// finished records that the processing of item, started at started (zero: as kept here),
// ended at now.
func (m *Queue[T]) finished(item T, started, now time.Time) {
	if !m.Enabled() {
		return
	}
	if m.kept {
		var ok bool
		if started, ok = m.startedAt[item]; ok {
			delete(m.startedAt, item)
		}
	}
	if !started.IsZero() {
		m.work.Observe(now.Sub(started).Seconds())
	}
}

// InFlight reports whether any item is being processed, as kept here (a priority queue's), so
// the unfinished-work gauges move.
func (m *Queue[T]) InFlight() bool { return m.Enabled() && len(m.startedAt) > 0 }

// UpdateUnfinished sets the unfinished-work gauges at now from the items in processing kept
// here (a priority queue's): the total and the longest time they have run, in seconds.
func (m *Queue[T]) UpdateUnfinished(now time.Time) {
	if !m.Enabled() {
		return
	}
	var total, longest float64
	for _, at := range m.startedAt {
		age := now.Sub(at).Seconds()
		total += age
		longest = max(longest, age)
	}
	m.SetUnfinished(total, longest)
}

// SetUnfinished sets the unfinished-work gauges: the total and the longest time the items in
// processing have run, in seconds.
func (m *Queue[T]) SetUnfinished(total, longest float64) {
	if !m.Enabled() {
		return
	}
	m.unfinished.Set(total)
	m.longest.Set(longest)
}

// Reprioritized records that a pending item moved from one priority to another.
func (m *Queue[T]) Reprioritized(from, to int) {
	if !m.Enabled() || m.depthBy == nil {
		return
	}
	m.depthBy.Dec(from)
	m.depthBy.Inc(to)
}

// Retried counts an item added with a delay to a priority queue.
func (m *Queue[T]) Retried() {
	if m.Enabled() && m.retries != nil {
		m.retries.Inc()
	}
}

func (m *Queue[T]) incDepth(priority int) {
	if m.depthBy != nil {
		m.depthBy.Inc(priority)
	} else {
		m.depth.Inc()
	}
}

func (m *Queue[T]) decDepth(priority int) {
	if m.depthBy != nil {
		m.depthBy.Dec(priority)
	} else {
		m.depth.Dec()
	}
}

// SetDelayed records that n items wait in the delay heap.
func (m *Queue[T]) SetDelayed(n int) {
	if m != nil && m.delayed != nil {
		m.delayed.Set(float64(n))
	}
}

// SetDebouncing records that n items wait out a debounce window.
func (m *Queue[T]) SetDebouncing(n int) {
	if m != nil && m.debouncing != nil {
		m.debouncing.Set(float64(n))
	}
}

// Absorbed counts an add that restarted the debounce window its item was waiting out.
func (m *Queue[T]) Absorbed() {
	if m != nil && m.absorbed != nil {
		m.absorbed.Inc()
	}
}

// NewRetries returns the retries counter of a delaying or rate-limiting queue named name, from
// provider or, when nil, the global provider; nil for an unnamed queue. It panics, as New does,
// if there is no provider or it returns nil.
func NewRetries(name string, provider Provider) CounterMetric {
	if name == "" {
		return nil
	}
	return made(providerOf(name, provider).NewRetriesMetric(name), "NewRetriesMetric", name)
}
