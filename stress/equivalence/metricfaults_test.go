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

// TestPanickingMetricsLoseNoItem: a call takes effect first, and a metric that panics as it is
// recorded then panics in the call's caller. So an Add whose metric panics has added its item,
// and a Done whose metric panics has ended the processing: nothing is lost or left in
// processing, and calling again changes nothing. client-go tells its metrics first and aborts
// the call: its Add adds nothing, and its Done leaves the item in processing for good (a later
// Add of it is never handed out), a difference this project documents. A storage whose Push
// panics changes nothing, metrics included.
func TestPanickingMetricsLoseNoItem(t *testing.T) {
	scenarios := []struct {
		name  string
		fail  string // the metric call that panics, once
		push  bool   // the storage's first Push panics instead
		steps []string
		want  []string // after each step: its outcome, the length, the items in processing
	}{
		{name: "adds", fail: "adds Inc",
			steps: []string{"add a", "add a", "get", "done a"},
			want:  []string{"panic adds failed; len 1; processing 0", "ok; len 1; processing 0", "ok; len 0; processing 1", "ok; len 0; processing 0"}},
		{name: "depth", fail: "depth Inc",
			steps: []string{"add a", "add a", "get", "done a"},
			want:  []string{"panic depth failed; len 1; processing 0", "ok; len 1; processing 0", "ok; len 0; processing 1", "ok; len 0; processing 0"}},
		{name: "work", fail: "work Observe",
			steps: []string{"add a", "get", "done a", "add a", "done a", "get", "done a"},
			want: []string{"ok; len 1; processing 0", "ok; len 0; processing 1", "panic work failed; len 0; processing 0",
				"ok; len 1; processing 0", "ok; len 1; processing 0", "ok; len 0; processing 1", "ok; len 0; processing 0"}},
		{name: "push", push: true,
			steps: []string{"add a", "add a", "get", "done a"},
			want:  []string{"panic push failed; len 0; processing 0", "ok; len 1; processing 0", "ok; len 0; processing 1", "ok; len 0; processing 0"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := newMetricCalls()
				calls.fail = sc.fail
				q := storedActorQueue(testingclock.NewFakeClock(time.Unix(0, 0)), calls, &pushFails{fail: sc.push})
				defer q.ShutDown()
				ext := q.(actorqueue.TypedExtensions[string])
				for i, s := range sc.steps {
					var item, what string
					fmt.Sscan(s, &what, &item)
					outcome := panicked(func() {
						switch what {
						case "add":
							q.Add(item)
						case "get":
							item, _ = q.Get()
						case "done":
							q.Done(item)
						}
					})
					got := fmt.Sprintf("%s; len %d; processing %d", outcome, q.Len(), ext.Snapshot().Processing)
					if got != sc.want[i] {
						t.Fatalf("step %d (%s): got %q, want %q\nmetrics:\n%s", i, s, got, sc.want[i], calls)
					}
					if sc.push && i == 0 && calls.String() != "" {
						t.Errorf("the add whose Push failed reached the metrics:\n%s", calls)
					}
				}
			})
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

// storedActorQueue builds a named queue on clock c, with metrics recorded in calls and items
// stored in s.
func storedActorQueue(c *testingclock.FakeClock, calls *metricCalls, s *pushFails) clientgo.TypedInterface[string] {
	return actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{
		Name: "q", Clock: c, MetricsProvider: actorQueueMetrics{calls}, Queue: s})
}
