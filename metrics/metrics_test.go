package metrics

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// value is a fake metric that records everything done to it.
type value struct {
	inc, dec     int
	set          float64
	observations []float64
}

func (v *value) Inc()              { v.inc++ }
func (v *value) Dec()              { v.dec++ }
func (v *value) Set(f float64)     { v.set = f }
func (v *value) Observe(f float64) { v.observations = append(v.observations, f) }

// fake is a provider handing out values, and recording the names it was asked for and, in
// order, which metrics.
type fake struct {
	depth, adds, latency, work, unfinished, longest, retries value
	names, asked                                             []string
}

func (p *fake) ask(metric, name string, v *value) *value {
	p.names = append(p.names, name)
	p.asked = append(p.asked, metric)
	return v
}

func (p *fake) NewDepthMetric(n string) GaugeMetric       { return p.ask("depth", n, &p.depth) }
func (p *fake) NewAddsMetric(n string) CounterMetric      { return p.ask("adds", n, &p.adds) }
func (p *fake) NewLatencyMetric(n string) HistogramMetric { return p.ask("latency", n, &p.latency) }
func (p *fake) NewWorkDurationMetric(n string) HistogramMetric {
	return p.ask("work", n, &p.work)
}
func (p *fake) NewUnfinishedWorkSecondsMetric(n string) SettableGaugeMetric {
	return p.ask("unfinished", n, &p.unfinished)
}
func (p *fake) NewLongestRunningProcessorSecondsMetric(n string) SettableGaugeMetric {
	return p.ask("longest", n, &p.longest)
}
func (p *fake) NewRetriesMetric(n string) CounterMetric { return p.ask("retries", n, &p.retries) }

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// TestQueueRecordsClientGoMetrics: a queue that keeps the instants itself (a priority queue's)
// records client-go's metrics from the calls alone.
func TestQueueRecordsClientGoMetrics(t *testing.T) {
	p := &fake{}
	m := New[string](Config{Name: "q", Provider: p, Priority: true})
	m.Added("a", 0, at(0))
	m.Added("b", 0, at(10))
	m.Started("a", 0, at(50)) // waited 50ms
	m.Added("a", 0, at(60))   // added again while processing
	m.UpdateUnfinished(at(150))
	m.Started("b", 0, at(200)) // waited 190ms
	m.UpdateUnfinished(at(250))
	m.Finished("a", at(300))   // worked 250ms
	m.Finished("a", at(310))   // not processing: nothing observed
	m.Started("a", 0, at(400)) // waited 340ms since its second add
	m.Finished("b", at(400))
	m.Finished("a", at(410))
	m.UpdateUnfinished(at(500))

	checks := []struct {
		name string
		got  any
		want any
	}{
		{"names asked", p.names, []string{"q", "q", "q", "q", "q", "q", "q"}},
		{"adds", p.adds.inc, 3},
		{"depth", p.depth.inc - p.depth.dec, 0},
		{"latency", p.latency.observations, []float64{0.05, 0.19, 0.34}},
		{"work", p.work.observations, []float64{0.25, 0.2, 0.01}},
		{"unfinished", p.unfinished.set, 0.0},
		{"longest", p.longest.set, 0.0},
		{"in flight", m.InFlight(), false},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestUnfinishedSumsAndLongest(t *testing.T) {
	p := &fake{}
	m := New[string](Config{Name: "q", Provider: p, Priority: true})
	m.Started("a", 0, at(0))
	m.Started("b", 0, at(1000))
	m.UpdateUnfinished(at(3000))
	if p.unfinished.set != 5 || p.longest.set != 3 || !m.InFlight() {
		t.Errorf("unfinished %v, longest %v, in flight %v; want 5, 3, true", p.unfinished.set, p.longest.set, m.InFlight())
	}
}

// TestReturnedItemWaitsAgain: an item handed out and given back unprocessed counts in the depth
// again, no longer in processing, and its next wait counts from its return.
func TestReturnedItemWaitsAgain(t *testing.T) {
	p := &fake{}
	m := New[string](Config{Name: "q", Provider: p, Priority: true})
	m.Added("a", 0, at(0))
	m.Started("a", 0, at(100))
	m.Returned("a", 0, at(300))
	if depth := p.depth.inc - p.depth.dec; depth != 1 || p.adds.inc != 1 || m.InFlight() {
		t.Errorf("depth %d, adds %d, in flight %v; want 1, 1, false", depth, p.adds.inc, m.InFlight())
	}
	m.Started("a", 0, at(700))
	if want := []float64{0.1, 0.4}; fmt.Sprint(p.latency.observations) != fmt.Sprint(want) {
		t.Errorf("latencies %v, want %v", p.latency.observations, want)
	}
}

// TestEventsCarryTheInstantsOfAFIFOQueue: a FIFO queue's core keeps the instants, and its
// events carry them: the metrics keep none, and measure the latency and the work from them.
func TestEventsCarryTheInstantsOfAFIFOQueue(t *testing.T) {
	p := &fake{}
	m := New[string](Config{Name: "q", Provider: p})
	m.Record(Event[string]{Kind: KindAdded, Item: "a"}, at(0))
	m.Record(Event[string]{Kind: KindStarted, Item: "a", Since: at(20)}, at(50))
	m.Record(Event[string]{Kind: KindFinished, Item: "a", Since: at(50)}, at(80))
	m.Record(Event[string]{Kind: KindFinished, Item: "b"}, at(90)) // never said it started
	m.SetUnfinished(1.5, 1)
	if len(m.addedAt)+len(m.startedAt) != 0 || m.InFlight() {
		t.Errorf("a FIFO queue's metrics kept %d adds and %d starts", len(m.addedAt), len(m.startedAt))
	}
	if got := fmt.Sprint(p.latency.observations, p.work.observations, p.unfinished.set, p.longest.set); got != "[0.03] [0.03] 1.5 1" {
		t.Errorf("latency, work, unfinished, longest: %s; want [0.03] [0.03] 1.5 1", got)
	}
}

func TestNoMetricsWithoutNameOrProvider(t *testing.T) {
	p := &fake{}
	if m := New[string](Config{Provider: p}); m != nil || m.Enabled() {
		t.Error("an unnamed queue records metrics")
	}
	if m := New[string](Config{Name: "q", Provider: noop{}}); m != nil {
		t.Error("the no-op provider makes metrics")
	}
	if len(p.names) != 0 {
		t.Errorf("provider asked for %v", p.names)
	}
	var m *Queue[string] // records nothing, and does not panic
	m.Added("a", 0, t0)
	m.Started("a", 0, t0)
	m.Finished("a", t0)
	m.Returned("a", 0, t0)
	m.UpdateUnfinished(t0)
	if NewRetries("", p) != nil {
		t.Error("an unnamed queue has a retries counter")
	}
	if NewRetries("q", p) != &p.retries {
		t.Error("a named queue has no retries counter")
	}
}

// TestSetProvider is the only test in this package that touches the global provider.
func TestSetProvider(t *testing.T) {
	if !IsNoop(Global()) {
		t.Fatal("the global provider is not the no-op one before SetProvider")
	}
	first, second := &fake{}, &fake{}
	SetProvider(first)
	SetProvider(second)
	if Global() != first {
		t.Error("the global provider is not the first one set")
	}
	New[string](Config{Name: "q"})
	if len(first.names) != 6 || len(second.names) != 0 {
		t.Errorf("first provider asked %d times, second %d; want 6, 0", len(first.names), len(second.names))
	}
}

// TestProviderAskedInOrder: a provider is asked for a queue's metrics in the order client-go
// asks, and for a priority queue's in the order controller-runtime asks.
func TestProviderAskedInOrder(t *testing.T) {
	for _, c := range []struct {
		priority bool
		want     string
	}{
		{false, "[depth adds latency work unfinished longest]"},
		{true, "[adds latency work unfinished longest retries depth]"},
	} {
		p := &fake{}
		New[string](Config{Name: "q", Provider: p, Priority: c.priority})
		if got := fmt.Sprint(p.asked); got != c.want {
			t.Errorf("priority %v: provider asked for %s, want %s", c.priority, got, c.want)
		}
	}
}

// nilOne is a fake provider whose method for one metric returns nil.
type nilOne struct {
	fake
	metric string
}

func (p *nilOne) NewDepthMetric(n string) GaugeMetric {
	if p.metric == "depth" {
		return nil
	}
	return p.fake.NewDepthMetric(n)
}
func (p *nilOne) NewAddsMetric(n string) CounterMetric {
	if p.metric == "adds" {
		return nil
	}
	return p.fake.NewAddsMetric(n)
}
func (p *nilOne) NewLatencyMetric(n string) HistogramMetric {
	if p.metric == "latency" {
		return nil
	}
	return p.fake.NewLatencyMetric(n)
}
func (p *nilOne) NewWorkDurationMetric(n string) HistogramMetric {
	if p.metric == "work" {
		return nil
	}
	return p.fake.NewWorkDurationMetric(n)
}
func (p *nilOne) NewUnfinishedWorkSecondsMetric(n string) SettableGaugeMetric {
	if p.metric == "unfinished" {
		return nil
	}
	return p.fake.NewUnfinishedWorkSecondsMetric(n)
}
func (p *nilOne) NewLongestRunningProcessorSecondsMetric(n string) SettableGaugeMetric {
	if p.metric == "longest" {
		return nil
	}
	return p.fake.NewLongestRunningProcessorSecondsMetric(n)
}
func (p *nilOne) NewRetriesMetric(n string) CounterMetric {
	if p.metric == "retries" {
		return nil
	}
	return p.fake.NewRetriesMetric(n)
}

// panicOf returns what f panics with, or nil.
func panicOf(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// TestNilMetricPanicsAtConstruction: a provider that returns a nil metric makes the queue's
// construction panic, naming the queue and the method, where client-go fails at the metric's
// first use (for the unfinished-work gauges, in a goroutine of its own).
func TestNilMetricPanicsAtConstruction(t *testing.T) {
	methods := map[string]string{
		"depth": "NewDepthMetric", "adds": "NewAddsMetric", "latency": "NewLatencyMetric",
		"work": "NewWorkDurationMetric", "unfinished": "NewUnfinishedWorkSecondsMetric",
		"longest": "NewLongestRunningProcessorSecondsMetric", "retries": "NewRetriesMetric",
	}
	for metric, method := range methods {
		p := &nilOne{metric: metric}
		build := func() { New[string](Config{Name: "pods", Provider: p, Priority: true}) }
		if metric == "retries" {
			build = func() { NewRetries("pods", p) }
		}
		want := `workqueue: queue "pods": the metrics provider's ` + method + " returned nil"
		if got := fmt.Sprint(panicOf(build)); got != want {
			t.Errorf("%s nil: panic %q, want %q", metric, got, want)
		}
	}
}

// TestSetProviderNil: after SetProvider(nil), a named queue without a provider of its own
// cannot be built, as in client-go, and says why; an unnamed one records nothing, as before.
// It sets the global provider directly and puts it back.
func TestSetProviderNil(t *testing.T) {
	saved := global.Load()
	defer global.Store(saved)
	global.Store(&provider{nil})

	want := `workqueue: queue "pods" has no metrics provider: SetProvider was given nil`
	if got := fmt.Sprint(panicOf(func() { New[string](Config{Name: "pods"}) })); got != want {
		t.Errorf("New: panic %q, want %q", got, want)
	}
	if got := fmt.Sprint(panicOf(func() { NewRetries("pods", nil) })); got != want {
		t.Errorf("NewRetries: panic %q, want %q", got, want)
	}
	if New[string](Config{}) != nil || NewRetries("", nil) != nil {
		t.Error("an unnamed queue records metrics")
	}
	p := &fake{}
	if New[string](Config{Name: "pods", Provider: p}) == nil || len(p.asked) != 6 {
		t.Error("a queue with a provider of its own does not use it")
	}
}
