package equivalence

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	actorqueue "github.com/actorqueue/workqueue"
)

// TestPanickingMetricsAbortTheCall: client-go tells its metrics of an Add before the item joins
// the queue, and of a Done before the item leaves processing, so a metric that panics there
// aborts the call: the item is not added, or stays in processing. A storage whose Push panics
// fails after the metrics heard of the add. Each scenario runs on both libraries, and every
// call's outcome, the queue's length after it and every metric call are compared.
//
// After a failed Push, client-go has the item in its dirty set but not in its queue, where it
// swallows every later add; actorqueue's state is as before the Add. That is a documented
// difference, so the storage scenario stops at the failed Add.
func TestPanickingMetricsAbortTheCall(t *testing.T) {
	scenarios := []struct {
		name  string
		fail  string // the metric call that panics, once
		push  bool   // the storage's first Push panics instead
		steps []string
	}{
		{name: "adds", fail: "adds Inc", steps: []string{"add a", "add a", "get", "done a"}},
		{name: "depth", fail: "depth Inc", steps: []string{"add a", "add a", "get", "done a"}},
		{name: "work", fail: "work Observe", steps: []string{"add a", "get", "done a", "add a", "done a", "get", "done a"}},
		{name: "push", push: true, steps: []string{"add a"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			play := func(newQueue faultyConstructor) []string {
				var trace []string
				synctest.Test(t, func(*testing.T) {
					calls := &metricCalls{log: map[string][]string{}}
					f := &faults{calls: calls, fail: sc.fail, push: sc.push}
					q := newQueue(testingclock.NewFakeClock(time.Unix(0, 0)), f)
					for _, s := range sc.steps {
						var item, what string
						fmt.Sscan(s, &what, &item)
						outcome := panicked(func() {
							switch what {
							case "add":
								q.Add(item)
							case "get":
								got, _ := q.Get()
								item = got
							case "done":
								q.Done(item)
							}
						})
						trace = append(trace, fmt.Sprintf("%s %s: %s; len %d\n%s", what, item, outcome, q.Len(), calls))
					}
					q.ShutDown()
				})
				return trace
			}
			compareStates(t, play(faultyClientGo), play(faultyActorQueue))
		})
	}
}

// panicked runs f and says whether it panicked, and with what.
func panicked(f func()) (outcome string) {
	defer func() {
		if p := recover(); p != nil {
			outcome = fmt.Sprintf("panic %v", p)
		}
	}()
	f()
	return "ok"
}

// faults makes one metric call, or the storage's first Push, panic once.
type faults struct {
	calls *metricCalls
	fail  string // "<metric> <method>"
	push  bool
}

// note records call, a call of method, on metric, then panics if the call is the one to fail.
func (f *faults) note(metric, method, call string) {
	recordedMetric{f.calls, metric}.note(call)
	if f.fail == metric+" "+method {
		f.fail = ""
		panic(metric + " failed")
	}
}

// faultyMetric is a metric of every kind that notes its calls through faults.
type faultyMetric struct {
	f    *faults
	name string
}

func (m faultyMetric) Inc()          { m.f.note(m.name, "Inc", "Inc") }
func (m faultyMetric) Dec()          { m.f.note(m.name, "Dec", "Dec") }
func (m faultyMetric) Set(v float64) { m.f.note(m.name, "Set", fmt.Sprintf("Set(%g)", v)) }
func (m faultyMetric) Observe(v float64) {
	m.f.note(m.name, "Observe", fmt.Sprintf("Observe(%g)", v))
}

// faultyStorage is a FIFO whose first Push panics when the faults say so.
type faultyStorage struct {
	f     *faults
	items []string
}

func (s *faultyStorage) Push(item string) {
	if s.f.push {
		s.f.push = false
		panic("push failed")
	}
	s.items = append(s.items, item)
}

func (s *faultyStorage) Pop() string {
	item := s.items[0]
	s.items = s.items[1:]
	return item
}

func (s *faultyStorage) Len() int       { return len(s.items) }
func (s *faultyStorage) Touch(_ string) {}

type faultyConstructor func(*testingclock.FakeClock, *faults) clientgo.TypedInterface[string]

func faultyClientGo(c *testingclock.FakeClock, f *faults) clientgo.TypedInterface[string] {
	return clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{
		Name: "q", Clock: c, MetricsProvider: faultyClientGoMetrics{f}, Queue: &faultyStorage{f: f}})
}

func faultyActorQueue(c *testingclock.FakeClock, f *faults) clientgo.TypedInterface[string] {
	return actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{
		Name: "q", Clock: c, MetricsProvider: faultyActorQueueMetrics{f}, Queue: &faultyStorage{f: f}})
}

type faultyClientGoMetrics struct{ f *faults }

func (p faultyClientGoMetrics) m(name string) faultyMetric { return faultyMetric{p.f, name} }

func (p faultyClientGoMetrics) NewDepthMetric(string) clientgo.GaugeMetric  { return p.m("depth") }
func (p faultyClientGoMetrics) NewAddsMetric(string) clientgo.CounterMetric { return p.m("adds") }
func (p faultyClientGoMetrics) NewLatencyMetric(string) clientgo.HistogramMetric {
	return p.m("latency")
}
func (p faultyClientGoMetrics) NewWorkDurationMetric(string) clientgo.HistogramMetric {
	return p.m("work")
}
func (p faultyClientGoMetrics) NewUnfinishedWorkSecondsMetric(string) clientgo.SettableGaugeMetric {
	return p.m("unfinished")
}
func (p faultyClientGoMetrics) NewLongestRunningProcessorSecondsMetric(string) clientgo.SettableGaugeMetric {
	return p.m("longest")
}
func (p faultyClientGoMetrics) NewRetriesMetric(string) clientgo.CounterMetric { return p.m("retries") }

type faultyActorQueueMetrics struct{ f *faults }

func (p faultyActorQueueMetrics) m(name string) faultyMetric { return faultyMetric{p.f, name} }

func (p faultyActorQueueMetrics) NewDepthMetric(string) actorqueue.GaugeMetric  { return p.m("depth") }
func (p faultyActorQueueMetrics) NewAddsMetric(string) actorqueue.CounterMetric { return p.m("adds") }
func (p faultyActorQueueMetrics) NewLatencyMetric(string) actorqueue.HistogramMetric {
	return p.m("latency")
}
func (p faultyActorQueueMetrics) NewWorkDurationMetric(string) actorqueue.HistogramMetric {
	return p.m("work")
}
func (p faultyActorQueueMetrics) NewUnfinishedWorkSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return p.m("unfinished")
}
func (p faultyActorQueueMetrics) NewLongestRunningProcessorSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return p.m("longest")
}
func (p faultyActorQueueMetrics) NewRetriesMetric(string) actorqueue.CounterMetric {
	return p.m("retries")
}
