package controllerruntime_test

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/controllerruntime"
)

// series are the workqueue series of one queue name in a gathering, by metric name and the
// labels other than name and controller, rendered as their values: "v" for a gauge or a
// counter, "count sum [cumulative bucket counts]" for a histogram.
type series map[string]string

// gather gathers reg and returns the workqueue series of the queue named name. It fails the test
// if the gathering fails, which it does when two collectors give the same series, or if a
// series' controller label is not the queue's name.
func gather(t *testing.T, reg prometheus.Gatherer, name string) series {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := series{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "workqueue_") {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["name"] != name {
				continue
			}
			if labels["controller"] != name {
				t.Errorf("%s{name=%q} has controller=%q", f.GetName(), name, labels["controller"])
			}
			id := f.GetName()
			if p, ok := labels["priority"]; ok {
				id += fmt.Sprintf("{priority=%q}", p)
			}
			out[id] = render(m)
		}
	}
	return out
}

func render(m *dto.Metric) string {
	switch {
	case m.Gauge != nil:
		return fmt.Sprint(m.GetGauge().GetValue())
	case m.Counter != nil:
		return fmt.Sprint(m.GetCounter().GetValue())
	case m.Histogram != nil:
		var buckets []uint64
		for _, b := range m.GetHistogram().GetBucket() {
			buckets = append(buckets, b.GetCumulativeCount())
		}
		return fmt.Sprintf("%d %.6f %v", m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum(), buckets)
	}
	return m.String()
}

// histogram returns the count and sum of a rendered histogram.
func histogram(t *testing.T, rendered string) (count int, sum float64) {
	t.Helper()
	if _, err := fmt.Sscanf(rendered, "%d %f", &count, &sum); err != nil {
		t.Fatalf("%q is not a histogram: %v", rendered, err)
	}
	return count, sum
}

// runs counts the runs of the tests that use controller-runtime's registry, which is the
// process's: they give their queues new names each time (-count).
var runs int

// TestMetricsInControllerRuntimesRegistry runs a known sequence on a queue from NewQueue and on
// controller-runtime's own priority queue, side by side in a bubble, and gathers
// controller-runtime's registry at three points: the series of both queues must be the same,
// in the same families (a collector of ours beside controller-runtime's would fail the
// gathering), and have the values the sequence implies.
func TestMetricsInControllerRuntimesRegistry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		runs++
		ours, theirs := fmt.Sprint("metrics-actorqueue-", runs), fmt.Sprint("metrics-controller-runtime-", runs)
		queues := []priorityqueue.PriorityQueue[string]{
			controllerruntime.NewQueue[string](ours, nil).(priorityqueue.PriorityQueue[string]),
			priorityqueue.New[string](theirs),
		}
		defer func() {
			for _, q := range queues {
				q.ShutDown()
			}
		}()
		each := func(f func(priorityqueue.PriorityQueue[string])) {
			for _, q := range queues {
				f(q)
			}
			synctest.Wait()
		}
		compare := func(point string) series {
			t.Helper()
			got, want := gather(t, crmetrics.Registry, ours), gather(t, crmetrics.Registry, theirs)
			for _, id := range slices.Sorted(maps.Keys(want)) {
				if got[id] != want[id] {
					t.Errorf("%s: %s is %q, controller-runtime's queue has %q", point, id, got[id], want[id])
				}
			}
			for id := range got {
				if _, ok := want[id]; !ok {
					t.Errorf("%s: %s = %q, a series controller-runtime's queue does not have", point, id, got[id])
				}
			}
			return got
		}
		expect := func(point string, got series, want map[string]string) {
			t.Helper()
			for _, id := range slices.Sorted(maps.Keys(want)) {
				if got[id] != want[id] {
					t.Errorf("%s: %s = %q, want %q", point, id, got[id], want[id])
				}
			}
		}

		each(func(q priorityqueue.PriorityQueue[string]) {
			q.AddWithOpts(priorityqueue.AddOpts{Priority: priority(1)}, "a", "b")
			q.Add("c")
			q.AddWithOpts(priorityqueue.AddOpts{Priority: priority(2)}, "c") // raised from 0 to 2
			q.AddAfter("d", time.Second)                                     // a retry, ready at 1s
			q.AddRateLimited("e")                                            // a retry, ready at 5ms
		})
		expect("after the adds", compare("after the adds"), map[string]string{
			`workqueue_depth{priority="0"}`: "0",
			`workqueue_depth{priority="1"}`: "2",
			`workqueue_depth{priority="2"}`: "1",
			"workqueue_adds_total":          "3",
			"workqueue_retries_total":       "2",
		})

		time.Sleep(2 * time.Second)
		each(func(q priorityqueue.PriorityQueue[string]) {
			for range 5 {
				q.GetWithPriority() // c, a, b, then e and d, which became ready at 5ms and 1s
			}
		})
		time.Sleep(3 * time.Second)
		synctest.Wait()
		expect("after 3s in processing", compare("after 3s in processing"), map[string]string{
			`workqueue_depth{priority="0"}`:               "0",
			`workqueue_depth{priority="1"}`:               "0",
			`workqueue_depth{priority="2"}`:               "0",
			"workqueue_adds_total":                        "5",
			"workqueue_unfinished_work_seconds":           "15", // five items, 3s each
			"workqueue_longest_running_processor_seconds": "3",
		})

		each(func(q priorityqueue.PriorityQueue[string]) {
			q.Done("c")
			q.Done("a")
		})
		time.Sleep(time.Second)
		each(func(q priorityqueue.PriorityQueue[string]) {
			q.Done("b")
			q.Done("e")
			q.Done("d")
		})
		time.Sleep(time.Second)
		synctest.Wait()
		got := compare("at the end")
		expect("at the end", got, map[string]string{
			"workqueue_unfinished_work_seconds":           "0",
			"workqueue_longest_running_processor_seconds": "0",
			"workqueue_retries_total":                     "2",
		})
		if count, sum := histogram(t, got["workqueue_queue_duration_seconds"]); count != 5 || math.Abs(sum-8.995) > 1e-9 {
			t.Errorf("queue duration: %d observations summing to %vs, want 5 summing to 2+2+2+1.995+1", count, sum)
		}
		if count, sum := histogram(t, got["workqueue_work_duration_seconds"]); count != 5 || math.Abs(sum-18) > 1e-9 {
			t.Errorf("work duration: %d observations summing to %vs, want 5 summing to 3+3+4+4+4", count, sum)
		}
	})
}

// TestDepthBeyond25Priorities adds one item at each of 27 priorities: the first 25 get a
// series each, the last two share the overflow series, and taking every item out brings all of
// them back to zero. It runs in a bubble so that it can wait for the queue to record.
func TestDepthBeyond25Priorities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		q := controllerruntime.New(workqueue.TypedPriorityQueueConfig[int]{Name: "many", MetricsProvider: newProvider(t, reg)})
		defer q.ShutDown()
		for p := range 27 {
			q.AddWithOpts(priorityqueue.AddOpts{Priority: priority(p)}, p)
		}
		synctest.Wait() // the provider records asynchronously (see Provider.AsyncMetrics)
		got := gather(t, reg, "many")
		for p := range 25 {
			if v := got[fmt.Sprintf("workqueue_depth{priority=%q}", fmt.Sprint(p))]; v != "1" {
				t.Errorf("the depth of priority %d is %q, want 1", p, v)
			}
		}
		overflow := `workqueue_depth{priority="exceeded_cardinality_limit"}`
		if v := got[overflow]; v != "2" {
			t.Errorf("%s = %q, want 2", overflow, v)
		}
		for range 27 {
			item, _, _ := q.GetWithPriority()
			q.Done(item)
		}
		synctest.Wait()
		for id, v := range gather(t, reg, "many") {
			if strings.HasPrefix(id, "workqueue_depth") && v != "0" {
				t.Errorf("%s = %q once every item was taken", id, v)
			}
		}
	})
}

// TestEachQueueHas25Priorities: two queues of one name, one after the other as a controller
// rebuilt in the same process makes them, use 20 priorities each. Each queue has its own
// allowance of 25, as in controller-runtime, so no item is counted in the overflow series.
func TestEachQueueHas25Priorities(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	for from := 0; from < 40; from += 20 {
		q := controllerruntime.New(workqueue.TypedPriorityQueueConfig[int]{Name: "rebuilt", MetricsProvider: provider})
		for p := from; p < from+20; p++ {
			q.AddWithOpts(priorityqueue.AddOpts{Priority: priority(p)}, p)
		}
		q.ShutDown()
	}
	got := gather(t, reg, "rebuilt")
	for p := range 40 {
		if v := got[fmt.Sprintf("workqueue_depth{priority=%q}", fmt.Sprint(p))]; v != "1" {
			t.Errorf("the depth of priority %d is %q, want 1", p, v)
		}
	}
	if v, ok := got[`workqueue_depth{priority="exceeded_cardinality_limit"}`]; ok {
		t.Errorf("the overflow series is %q, want none", v)
	}
}

// TestNewRecordsInControllerRuntimesRegistryByDefault: a named queue made by New without a
// provider records its metrics in controller-runtime's registry, as priorityqueue.New does.
func TestNewRecordsInControllerRuntimesRegistryByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := controllerruntime.New(workqueue.TypedPriorityQueueConfig[string]{Name: "by-default"})
		defer q.ShutDown()
		q.AddWithOpts(priorityqueue.AddOpts{Priority: priority(2)}, "a")
		synctest.Wait() // the provider records asynchronously
		got := gather(t, crmetrics.Registry, "by-default")
		if got[`workqueue_depth{priority="2"}`] != "1" || got["workqueue_adds_total"] != "1" {
			t.Errorf("controller-runtime's registry has %v, want a depth of 1 at priority 2 and 1 add", got)
		}
	})
}

// clientGoProvider is a metrics provider written for client-go: it counts adds and keeps the
// depth of every queue.
type clientGoProvider struct{ adds, depth *prometheus.GaugeVec }

func (p clientGoProvider) NewDepthMetric(name string) clientgo.GaugeMetric {
	return p.depth.WithLabelValues(name)
}
func (p clientGoProvider) NewAddsMetric(name string) clientgo.CounterMetric {
	return p.adds.WithLabelValues(name)
}
func (clientGoProvider) NewLatencyMetric(string) clientgo.HistogramMetric {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: "latency"})
}
func (clientGoProvider) NewWorkDurationMetric(string) clientgo.HistogramMetric {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: "work"})
}
func (clientGoProvider) NewUnfinishedWorkSecondsMetric(string) clientgo.SettableGaugeMetric {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: "unfinished"})
}
func (clientGoProvider) NewLongestRunningProcessorSecondsMetric(string) clientgo.SettableGaugeMetric {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: "longest"})
}
func (clientGoProvider) NewRetriesMetric(string) clientgo.CounterMetric {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: "retries"})
}

// TestFromClientGo: a provider written for client-go, adapted, records a queue's adds and depth.
func TestFromClientGo(t *testing.T) {
	p := clientGoProvider{
		adds:  prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "adds"}, []string{"name"}),
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "depth"}, []string{"name"}),
	}
	q := controllerruntime.New(workqueue.TypedPriorityQueueConfig[string]{Name: "adapted", MetricsProvider: controllerruntime.FromClientGo(p)})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	if adds, depth := testutil.ToFloat64(p.adds.WithLabelValues("adapted")), testutil.ToFloat64(p.depth.WithLabelValues("adapted")); adds != 2 || depth != 2 {
		t.Errorf("adds %v, depth %v; want 2 and 2", adds, depth)
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "workqueue: ") {
			t.Errorf("FromClientGo(nil) panicked with %v, want a workqueue: message", r)
		}
	}()
	controllerruntime.FromClientGo(nil)
}

// TestNewProviderInARegistryOfItsOwn runs the same sequence on a queue whose provider is in a
// new registry and on controller-runtime's queue: the provider must have registered the seven
// families with controller-runtime's types, help texts and histogram buckets.
func TestNewProviderInARegistryOfItsOwn(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		runs++
		queues := []priorityqueue.PriorityQueue[string]{
			controllerruntime.New(workqueue.TypedPriorityQueueConfig[string]{Name: "own", MetricsProvider: provider}),
			priorityqueue.New[string](fmt.Sprint("reference-", runs)),
		}
		for _, q := range queues {
			q.AddAfter("a", time.Second)
			q.Add("b")
			q.GetWithPriority()
		}
		time.Sleep(time.Second)
		for _, q := range queues {
			q.GetWithPriority()
			q.Done("a")
			q.Done("b")
			q.ShutDown()
		}
	})
	ours, theirs := shapes(t, reg), shapes(t, crmetrics.Registry)
	if len(ours) != 7 {
		t.Errorf("the registry has %d workqueue families, want 7", len(ours))
	}
	for name, shape := range ours {
		if shape != theirs[name] {
			t.Errorf("%s is %s\ncontroller-runtime's is %s", name, shape, theirs[name])
		}
	}
}

// shapes returns the type, help text and histogram buckets of reg's workqueue families, by name.
func shapes(t *testing.T, reg prometheus.Gatherer) map[string]string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "workqueue_") {
			continue
		}
		shape := fmt.Sprintf("%v %q", f.GetType(), f.GetHelp())
		if h := f.GetMetric()[0].GetHistogram(); h != nil {
			for _, b := range h.GetBucket() {
				shape += fmt.Sprintf(" %g", b.GetUpperBound())
			}
		}
		out[f.GetName()] = shape
	}
	return out
}

// TestNewProviderShares checks that a second provider in a registry uses the first one's
// collectors, and that a registry that holds another metric under one of the names is refused.
func TestNewProviderShares(t *testing.T) {
	reg := prometheus.NewRegistry()
	first, second := newProvider(t, reg), newProvider(t, reg)
	first.NewAddsMetric("shared").Inc()
	second.NewAddsMetric("shared").Inc()
	first.NewDepthMetric("shared").Inc()
	if got := gather(t, reg, "shared"); got["workqueue_adds_total"] != "2" || got[`workqueue_depth{priority=""}`] != "1" {
		t.Errorf("the providers do not share their series: %v", got)
	}

	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_depth", Help: "Current depth of workqueue"}, []string{"name"}))
	if _, err := controllerruntime.NewProvider(clash); err == nil {
		t.Error("NewProvider accepted a registry with client-go's workqueue_depth")
	}
	for _, reg := range []prometheus.Registerer{nil, (*prometheus.Registry)(nil)} {
		if _, err := controllerruntime.NewProvider(reg); err == nil || !strings.HasPrefix(err.Error(), "workqueue: ") {
			t.Errorf("NewProvider(%#v) returned %v, want a workqueue: error", reg, err)
		}
	}
}

// newProvider returns a provider in reg, failing the test if it cannot be made.
func newProvider(t *testing.T, reg prometheus.Registerer) *controllerruntime.Provider {
	t.Helper()
	provider, err := controllerruntime.NewProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	return provider
}

// TestGivenUpCounter: an item the queue gives up on (MaxRetries) counts on
// workqueue_given_up_total{name,controller}, registered only once a queue has a maximum.
func TestGivenUpCounter(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		q := controllerruntime.New(workqueue.TypedPriorityQueueConfig[string]{Name: "patient", MetricsProvider: provider, MaxRetries: 1})
		q.AddRateLimited("a") // its one retry
		q.AddRateLimited("a") // given up
		q.AddRateLimited("b")
		q.ShutDown()
	})
	if got := gather(t, reg, "patient")["workqueue_given_up_total"]; got != "1" {
		t.Errorf("workqueue_given_up_total{name=\"patient\"} = %q, want 1", got)
	}
}
