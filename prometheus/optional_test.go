package prometheus_test

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/metrics"
	wqprometheus "github.com/actorqueue/workqueue/prometheus"
)

// frozenClock is a queue clock that never moves: no delay ever passes and no tick comes, so a
// scrape can look at a running queue with no timing involved.
type frozenClock struct{}

var frozenAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (frozenClock) Now() time.Time                       { return frozenAt }
func (frozenClock) Since(t time.Time) time.Duration      { return frozenAt.Sub(t) }
func (frozenClock) After(time.Duration) <-chan time.Time { return nil }

// TestScrapeRunningQueueDelayedDepth scrapes a rate-limiting queue while it runs, then after its
// shutdown: workqueue_delayed_depth counts the items in the delay heap, once each, and drops to
// zero when the shutdown drops them, while the queued item stays counted in workqueue_depth.
func TestScrapeRunningQueueDelayedDepth(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg, wqprometheus.WithSynchronousMetrics()) // read right after each call
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Hour)
	q := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{
		Name: "running", MetricsProvider: provider, Clock: frozenClock{},
	})
	defer q.ShutDown()
	q.AddAfter("a", time.Hour)
	q.AddAfter("b", time.Minute)
	q.AddAfter("a", time.Minute) // still one entry
	q.AddRateLimited("c")        // due in a second
	q.AddAfter("d", 0)           // queued at once

	running := scrape(t, reg)
	q.ShutDown()
	stopped := scrape(t, reg)
	readings := []struct {
		what      string
		got, want float64
	}{
		{"delayed_depth", running.gauge(t, "workqueue_delayed_depth", "name", "running"), 3},
		{"depth", running.gauge(t, "workqueue_depth", "name", "running"), 1},
		{"adds_total", running.counter(t, "workqueue_adds_total", "name", "running"), 1},
		{"retries_total", running.counter(t, "workqueue_retries_total", "name", "running"), 5},
		{"delayed_depth after shutdown", stopped.gauge(t, "workqueue_delayed_depth", "name", "running"), 0},
		{"depth after shutdown", stopped.gauge(t, "workqueue_depth", "name", "running"), 1},
	}
	for _, r := range readings {
		if r.got != r.want {
			t.Errorf("workqueue_%s = %v, want %v", r.what, r.got, r.want)
		}
	}
}

// TestDelayedMetric checks the gauge directly, with its help text.
func TestDelayedMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	provider.NewDelayedMetric("d").Set(3)
	got := gather(t, reg)
	if v := got.gauge(t, "workqueue_delayed_depth", "name", "d"); v != 3 {
		t.Errorf("workqueue_delayed_depth{name=\"d\"} = %v, want 3", v)
	}
	const help = "Current number of items in the delay heap of workqueue, waiting for their delay to pass before being added."
	if h := got["workqueue_delayed_depth"].GetHelp(); h != help {
		t.Errorf("help %q, want %q", h, help)
	}
}

// depths reads workqueue_depth_by_priority of the queue called name, by priority label.
func depths(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	byLabel := make(map[string]float64)
	for _, m := range gather(t, reg)["workqueue_depth_by_priority"].GetMetric() {
		labels := make(map[string]string)
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["name"] == name {
			byLabel[labels["priority"]] = m.GetGauge().GetValue()
		}
	}
	return byLabel
}

func TestDepthByPriority(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	var depth metrics.DepthMetricWithPriority = provider.NewDepthMetricWithPriority("pq")
	depth.Inc(0)
	depth.Inc(0)
	depth.Inc(10)
	depth.Inc(-5)
	depth.Dec(0)
	depth.Dec(10)

	want := map[string]float64{"0": 1, "10": 0, "-5": 1}
	got := depths(t, reg, "pq")
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
	for label, v := range want {
		if got[label] != v {
			t.Errorf("workqueue_depth_by_priority{name=\"pq\",priority=%q} = %v, want %v", label, got[label], v)
		}
	}
	if v := gather(t, reg).gauge(t, "workqueue_depth", "name", "pq"); v != 2 {
		t.Errorf("workqueue_depth{name=\"pq\"} = %v, want the total, 2", v)
	}
}

// TestDepthByPriorityCardinalityCap checks that the first 25 priorities of a name get series of
// their own and the others share one, that a priority stays on its series so that every series
// counts its own items (controller-runtime moves all priorities to the shared series once the cap
// is passed, so earlier series keep items that will never leave them, and the shared one goes
// negative), and that queues of the same name share the cap.
func TestDepthByPriorityCardinalityCap(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	first := provider.NewDepthMetricWithPriority("capped")
	for p := range 30 {
		first.Inc(p)
	}
	first.Dec(3)  // its own series
	first.Dec(29) // the shared one
	second := provider.NewDepthMetricWithPriority("capped")
	second.Inc(24)  // its own series, as for the first queue
	second.Inc(100) // a 31st priority: the shared one
	second.Inc(100)
	second.Dec(100)

	got := depths(t, reg, "capped")
	want := map[string]float64{"exceeded_cardinality_limit": 4 + 1} // 25..28, and 100
	for p := range 25 {
		want[strconv.Itoa(p)] = 1
	}
	want["3"], want["24"] = 0, 2
	if len(got) != len(want) {
		t.Errorf("%d series, want %d: %v", len(got), len(want), got)
	}
	for label, v := range want {
		if got[label] != v {
			t.Errorf("workqueue_depth_by_priority{name=\"capped\",priority=%q} = %v, want %v", label, got[label], v)
		}
	}
	if v := gather(t, reg).gauge(t, "workqueue_depth", "name", "capped"); v != 30 {
		t.Errorf("workqueue_depth{name=\"capped\"} = %v, want the total, 30", v)
	}
}

// TestDelayedDepthOfDelayingQueueAroundNamedQueue: a delaying queue built around a named queue
// of this package keeps its delays in that queue's delay heap. The inner queue, made as a plain
// queue, records no workqueue_delayed_depth until it is wrapped, then counts the wrapper's
// delayed items under its own name.
func TestDelayedDepthOfDelayingQueueAroundNamedQueue(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg, wqprometheus.WithSynchronousMetrics()) // read right after each call
	inner := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "inner", MetricsProvider: provider})
	defer inner.ShutDown()
	if m := gather(t, reg).metric("workqueue_delayed_depth", "name", "inner"); m != nil {
		t.Errorf("a plain queue records workqueue_delayed_depth: %v", m)
	}
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
		Name: "wrapper", MetricsProvider: provider, Queue: inner, // on its clock: one owner
	})
	q.AddAfter("a", time.Hour)
	q.AddAfter("b", time.Minute)
	q.Add("c")
	got := gather(t, reg)
	if v := got.gauge(t, "workqueue_delayed_depth", "name", "inner"); v != 2 {
		t.Errorf("workqueue_delayed_depth{name=\"inner\"} = %v, want 2", v)
	}
	if v := got.gauge(t, "workqueue_depth", "name", "inner"); v != 1 {
		t.Errorf("workqueue_depth{name=\"inner\"} = %v, want 1", v)
	}
	if v := got.counter(t, "workqueue_retries_total", "name", "wrapper"); v != 2 {
		t.Errorf("workqueue_retries_total{name=\"wrapper\"} = %v, want 2", v)
	}
}

// TestDebounceMetrics scrapes a FIFO and a priority queue that debounce, and one that does not:
// workqueue_debouncing counts the items waiting out their window and workqueue_debounced_adds_total
// the adds that restarted one, for the debounced queues only, so that a scrape of queues without
// the option has exactly client-go's families.
func TestDebounceMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	window := workqueue.Debounce{Window: time.Second}
	synctest.Test(t, func(t *testing.T) {
		fifo := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "fifo", MetricsProvider: provider, Debounce: window})
		prio := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Name: "prio", MetricsProvider: provider, Debounce: window})
		plain := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "plain", MetricsProvider: provider})
		for _, item := range []string{"a", "a", "a", "b"} {
			fifo.Add(item)
			prio.Add(item)
			plain.Add(item)
		}
		synctest.Wait()
		got := gather(t, reg)
		for _, name := range []string{"fifo", "prio"} {
			if v := got.gauge(t, "workqueue_debouncing", "name", name); v != 2 {
				t.Errorf("workqueue_debouncing{name=%q} = %v, want 2", name, v)
			}
			if v := got.counter(t, "workqueue_debounced_adds_total", "name", name); v != 2 {
				t.Errorf("workqueue_debounced_adds_total{name=%q} = %v, want 2", name, v)
			}
			if v := got.gauge(t, "workqueue_depth", "name", name); v != 0 {
				t.Errorf("workqueue_depth{name=%q} = %v, want 0 while the items wait out their window", name, v)
			}
		}
		if got.metric("workqueue_debouncing", "name", "plain") != nil || got.metric("workqueue_debounced_adds_total", "name", "plain") != nil {
			t.Error("a queue without a window has debounce series")
		}
		fifo.ShutDown()
		prio.ShutDown()
		plain.ShutDown()
	})
	unused := prometheus.NewRegistry()
	p := newProvider(t, unused)
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: p})
	q.ShutDown()
	for name := range gather(t, unused) {
		if strings.Contains(name, "debounc") {
			t.Errorf("a registry with no debounced queue shows the family %s", name)
		}
	}
}
