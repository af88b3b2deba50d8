package metrics

import "time"

// Queue records the metrics of one queue. It is plain single-goroutine code: every method takes
// the current instant. A nil *Queue records nothing, so a queue without metrics can call it
// unconditionally; [Queue.Enabled] tells whether reading the clock is worth it.
type Queue[T comparable] struct {
	depth      GaugeMetric
	adds       CounterMetric
	latency    HistogramMetric
	work       HistogramMetric
	unfinished SettableGaugeMetric
	longest    SettableGaugeMetric
	delayed    SettableGaugeMetric // nil unless the provider offers it and the queue delays

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
}

// New creates the six metrics of a queue, or returns nil when it records none: when it has no
// name or its provider is the no-op one, as in client-go. (The retries counter of delaying
// queues is apart: see NewRetries.)
func New[T comparable](c Config) *Queue[T] {
	p := c.Provider
	if p == nil {
		p = Global()
	}
	if c.Name == "" || IsNoop(p) {
		return nil
	}
	m := &Queue[T]{
		depth:      p.NewDepthMetric(c.Name),
		adds:       p.NewAddsMetric(c.Name),
		latency:    p.NewLatencyMetric(c.Name),
		work:       p.NewWorkDurationMetric(c.Name),
		unfinished: p.NewUnfinishedWorkSecondsMetric(c.Name),
		longest:    p.NewLongestRunningProcessorSecondsMetric(c.Name),
		addedAt:    make(map[T]time.Time),
		startedAt:  make(map[T]time.Time),
	}
	if d, ok := p.(DelayedProvider); ok && c.Delayed {
		m.delayed = d.NewDelayedMetric(c.Name)
	}
	return m
}

// Enabled reports whether m records anything; the caller may skip reading the clock if not.
func (m *Queue[T]) Enabled() bool { return m != nil }

// Added records that item became pending at now.
func (m *Queue[T]) Added(item T, now time.Time) {
	if !m.Enabled() {
		return
	}
	m.adds.Inc()
	m.depth.Inc()
	if _, ok := m.addedAt[item]; !ok {
		m.addedAt[item] = now
	}
}

// Started records that item was handed out at now.
func (m *Queue[T]) Started(item T, now time.Time) {
	if !m.Enabled() {
		return
	}
	m.depth.Dec()
	m.startedAt[item] = now
	if at, ok := m.addedAt[item]; ok {
		m.latency.Observe(now.Sub(at).Seconds())
		delete(m.addedAt, item)
	}
}

// Finished records that the processing of item ended at now.
func (m *Queue[T]) Finished(item T, now time.Time) {
	if !m.Enabled() {
		return
	}
	if at, ok := m.startedAt[item]; ok {
		m.work.Observe(now.Sub(at).Seconds())
		delete(m.startedAt, item)
	}
}

// InFlight reports whether any item is being processed, so the unfinished-work gauges move.
func (m *Queue[T]) InFlight() bool { return m.Enabled() && len(m.startedAt) > 0 }

// UpdateUnfinished sets the unfinished-work gauges at now: the total and the longest time the
// items in processing have run, in seconds.
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
	m.unfinished.Set(total)
	m.longest.Set(longest)
}

// SetDelayed records that n items wait in the delay heap.
func (m *Queue[T]) SetDelayed(n int) {
	if m != nil && m.delayed != nil {
		m.delayed.Set(float64(n))
	}
}

// NewRetries returns the retries counter of a delaying or rate-limiting queue named name, from
// provider or, when nil, the global provider; nil for an unnamed queue.
func NewRetries(name string, provider Provider) CounterMetric {
	if name == "" {
		return nil
	}
	if provider == nil {
		provider = Global()
	}
	return provider.NewRetriesMetric(name)
}
