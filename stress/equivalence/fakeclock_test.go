package equivalence

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	actorqueue "github.com/actorqueue/workqueue"
)

// constructor makes a queue of one library on clock, with metrics recorded in calls if it has any.
type constructor func(clock *testingclock.FakeClock, calls *metricCalls) clientgo.TypedInterface[string]

// TestMetricsOnAFakeClock runs client-go's own metrics tests (TestMetrics, then
// TestMetricShutdown), through the public constructors, on both libraries with a fake clock,
// and compares every call the queues make to their metrics, step by step, and whether the
// clock has waiters. With a clock of the test's own, the unfinished-work gauges follow
// client-go's schedule: the clock has a waiter as soon as the queue exists (client-go's tests
// wait for it), the gauges are set every 500 ms from creation, through idle periods, and never
// after shutdown.
func TestMetricsOnAFakeClock(t *testing.T) {
	kinds := map[string][2]constructor{
		"plain": {
			func(c *testingclock.FakeClock, p *metricCalls) clientgo.TypedInterface[string] {
				return clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{
					Name: "test", Clock: c, MetricsProvider: clientGoMetrics{p}})
			},
			func(c *testingclock.FakeClock, p *metricCalls) clientgo.TypedInterface[string] {
				return actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{
					Name: "test", Clock: c, MetricsProvider: actorQueueMetrics{p}})
			},
		},
		"rate-limiting": {
			func(c *testingclock.FakeClock, p *metricCalls) clientgo.TypedInterface[string] {
				return clientgo.NewTypedRateLimitingQueueWithConfig(clientgo.DefaultTypedControllerRateLimiter[string](),
					clientgo.TypedRateLimitingQueueConfig[string]{Name: "test", Clock: c, MetricsProvider: clientGoMetrics{p}})
			},
			func(c *testingclock.FakeClock, p *metricCalls) clientgo.TypedInterface[string] {
				return actorqueue.NewTypedRateLimitingQueueWithConfig(actorqueue.DefaultTypedControllerRateLimiter[string](),
					actorqueue.TypedRateLimitingQueueConfig[string]{Name: "test", Clock: c, MetricsProvider: actorQueueMetrics{p}})
			},
		},
	}
	for kind, pair := range kinds {
		t.Run(kind, func(t *testing.T) {
			compareStates(t, metricsScenario(t, pair[0]), metricsScenario(t, pair[1]))
		})
	}
}

// TestWaitersOnAFakeClock plays the same steps on queues without metrics, and compares whether
// the fake clock has waiters after each: client-go's delaying and rate-limiting queues always
// have one (their heartbeat), its plain queue never.
func TestWaitersOnAFakeClock(t *testing.T) {
	kinds := map[string][2]constructor{
		"plain": {
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{Clock: c})
			},
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{Clock: c})
			},
		},
		"delaying": {
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{Clock: c})
			},
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{Clock: c})
			},
		},
		"delaying, around a queue of the same library": {
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{
					Clock: c, Queue: clientgo.NewTyped[string]()})
			},
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{
					Clock: c, Queue: actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{Clock: c})})
			},
		},
		"delaying, around a foreign queue": {
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{
					Clock: c, Queue: clientgo.NewTyped[string]()})
			},
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{
					Clock: c, Queue: clientgo.NewTyped[string]()})
			},
		},
		"rate-limiting": {
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return clientgo.NewTypedRateLimitingQueueWithConfig(clientgo.DefaultTypedControllerRateLimiter[string](),
					clientgo.TypedRateLimitingQueueConfig[string]{Clock: c})
			},
			func(c *testingclock.FakeClock, _ *metricCalls) clientgo.TypedInterface[string] {
				return actorqueue.NewTypedRateLimitingQueueWithConfig(actorqueue.DefaultTypedControllerRateLimiter[string](),
					actorqueue.TypedRateLimitingQueueConfig[string]{Clock: c})
			},
		},
	}
	for kind, pair := range kinds {
		t.Run(kind, func(t *testing.T) {
			compareStates(t, metricsScenario(t, pair[0]), metricsScenario(t, pair[1]))
		})
	}
}

// compareStates fails t at the first step where actorqueue's state differs from client-go's.
func compareStates(t *testing.T, want, got []string) {
	t.Helper()
	for i := range max(len(want), len(got)) {
		if w, g := at(want, i), at(got, i); w != g {
			t.Fatalf("after step %d, actorqueue:\n%s\nclient-go:\n%s", i, g, w)
		}
	}
}

// metricsScenario plays client-go's metrics tests on a queue from newQueue, and returns, after
// each step, whether the clock has waiters and the calls made to every metric so far.
func metricsScenario(t *testing.T, newQueue constructor) []string {
	var states []string
	synctest.Test(t, func(*testing.T) {
		clock := testingclock.NewFakeClock(time.Unix(0, 0))
		calls := newMetricCalls()
		q := newQueue(clock, calls)
		step := func(what string, f func()) {
			f()
			synctest.Wait()
			waiters := fmt.Sprint(clock.HasWaiters())
			if q.ShuttingDown() {
				waiters = "not compared" // client-go's stopped ticker may stay on a fake clock
			}
			states = append(states, fmt.Sprintf("%s; waiters: %s\n%s", what, waiters, calls))
		}
		step("created", func() {})
		step("idle tick", func() { clock.Step(500 * time.Millisecond) })
		step("add", func() { q.Add("foo") })
		step("get", func() { clock.Step(50 * time.Microsecond); q.Get() })
		step("adds while processing", func() {
			for range 5 {
				q.Add("foo")
			}
		})
		step("done", func() { clock.Step(25 * time.Microsecond); q.Done("foo") })
		step("get again", func() { q.Get() })
		step("tick in flight", func() { clock.Step(500*time.Millisecond - 75*time.Microsecond) })
		step("another", func() { clock.Step(500 * time.Millisecond) })
		step("done again", func() { q.Done("foo") })
		step("tick to zero", func() { clock.Step(500 * time.Millisecond) })
		step("idle tick again", func() { clock.Step(500 * time.Millisecond) })
		step("shut down", q.ShutDown)
		step("an hour after shutdown", func() { clock.Step(time.Hour) })
	})
	return states
}

func at(states []string, i int) string {
	if i < len(states) {
		return states[i]
	}
	return "(no such step)"
}

// metricCalls records every call a queue makes to its metrics, per metric, in order, and the
// order the metrics were created in. It serves both libraries through clientGoMetrics and
// actorQueueMetrics, whose methods differ only in the named types they return.
type metricCalls struct {
	mu      sync.Mutex
	log     map[string][]string
	created []string
	fail    string // "<metric> <method>", as "adds Inc": that call panics, once, once recorded
}

// newMetricCalls returns an empty record that makes no call fail.
func newMetricCalls() *metricCalls { return &metricCalls{log: map[string][]string{}} }

// metric creates the metric name.
func (c *metricCalls) metric(name string) recordedMetric {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.created = append(c.created, name)
	return recordedMetric{c, name}
}

func (c *metricCalls) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(c.log)) {
		fmt.Fprintf(&b, "\t%s: %s\n", name, strings.Join(c.log[name], " "))
	}
	return b.String()
}

// recordedMetric is one metric of any kind: it records each call made to it.
type recordedMetric struct {
	calls *metricCalls
	name  string
}

// note records call, and panics if it is the call to fail.
func (m recordedMetric) note(call string) {
	m.calls.mu.Lock()
	m.calls.log[m.name] = append(m.calls.log[m.name], call)
	method, _, _ := strings.Cut(call, "(")
	fail := m.calls.fail == m.name+" "+method
	if fail {
		m.calls.fail = ""
	}
	m.calls.mu.Unlock()
	if fail {
		panic(m.name + " failed")
	}
}

func (m recordedMetric) Inc()              { m.note("Inc") }
func (m recordedMetric) Dec()              { m.note("Dec") }
func (m recordedMetric) Set(v float64)     { m.note(fmt.Sprintf("Set(%g)", v)) }
func (m recordedMetric) Observe(v float64) { m.note(fmt.Sprintf("Observe(%g)", v)) }

type clientGoMetrics struct{ *metricCalls }

func (p clientGoMetrics) NewDepthMetric(string) clientgo.GaugeMetric  { return p.metric("depth") }
func (p clientGoMetrics) NewAddsMetric(string) clientgo.CounterMetric { return p.metric("adds") }
func (p clientGoMetrics) NewLatencyMetric(string) clientgo.HistogramMetric {
	return p.metric("latency")
}
func (p clientGoMetrics) NewWorkDurationMetric(string) clientgo.HistogramMetric {
	return p.metric("work")
}
func (p clientGoMetrics) NewUnfinishedWorkSecondsMetric(string) clientgo.SettableGaugeMetric {
	return p.metric("unfinished")
}
func (p clientGoMetrics) NewLongestRunningProcessorSecondsMetric(string) clientgo.SettableGaugeMetric {
	return p.metric("longest")
}
func (p clientGoMetrics) NewRetriesMetric(string) clientgo.CounterMetric { return p.metric("retries") }

type actorQueueMetrics struct{ *metricCalls }

func (p actorQueueMetrics) NewDepthMetric(string) actorqueue.GaugeMetric { return p.metric("depth") }
func (p actorQueueMetrics) NewAddsMetric(string) actorqueue.CounterMetric {
	return p.metric("adds")
}
func (p actorQueueMetrics) NewLatencyMetric(string) actorqueue.HistogramMetric {
	return p.metric("latency")
}
func (p actorQueueMetrics) NewWorkDurationMetric(string) actorqueue.HistogramMetric {
	return p.metric("work")
}
func (p actorQueueMetrics) NewUnfinishedWorkSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return p.metric("unfinished")
}
func (p actorQueueMetrics) NewLongestRunningProcessorSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return p.metric("longest")
}
func (p actorQueueMetrics) NewRetriesMetric(string) actorqueue.CounterMetric {
	return p.metric("retries")
}
