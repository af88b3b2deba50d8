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
			play := func(newQueue storedQueue) []string {
				var trace []string
				synctest.Test(t, func(*testing.T) {
					calls := newMetricCalls()
					calls.fail = sc.fail
					q := newQueue(testingclock.NewFakeClock(time.Unix(0, 0)), calls, &pushFails{fail: sc.push})
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
			compareStates(t, play(storedClientGo), play(storedActorQueue))
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

// pushFails is a FIFO storage whose first Push panics when fail is set.
type pushFails struct {
	fail  bool
	items []string
}

func (s *pushFails) Push(item string) {
	if s.fail {
		s.fail = false
		panic("push failed")
	}
	s.items = append(s.items, item)
}

func (s *pushFails) Pop() string {
	item := s.items[0]
	s.items = s.items[1:]
	return item
}

func (s *pushFails) Len() int       { return len(s.items) }
func (s *pushFails) Touch(_ string) {}

// storedQueue builds a named queue of one library on clock c, with metrics recorded in calls
// and items stored in s.
type storedQueue func(c *testingclock.FakeClock, calls *metricCalls, s *pushFails) clientgo.TypedInterface[string]

func storedClientGo(c *testingclock.FakeClock, calls *metricCalls, s *pushFails) clientgo.TypedInterface[string] {
	return clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{
		Name: "q", Clock: c, MetricsProvider: clientGoMetrics{calls}, Queue: s})
}

func storedActorQueue(c *testingclock.FakeClock, calls *metricCalls, s *pushFails) clientgo.TypedInterface[string] {
	return actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{
		Name: "q", Clock: c, MetricsProvider: actorQueueMetrics{calls}, Queue: s})
}
