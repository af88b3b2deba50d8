package prometheus_test

import (
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/actorqueue/workqueue"
	wqprometheus "github.com/actorqueue/workqueue/prometheus"
)

// TestClientGoFamilies checks the type and help text of each of client-go's seven metrics
// against k8s.io/component-base/metrics/prometheus/workqueue, and the buckets of both
// histograms: 10ns to 10s, a factor of ten apart.
func TestClientGoFamilies(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[int]{Name: "q", MetricsProvider: provider})
		q.AddAfter(1, 0)
		q.Get()
		q.Done(1)
		q.ShutDown()
	})
	got := scrape(t, reg)

	families := []struct {
		name string
		kind dto.MetricType
		help string
	}{
		{"workqueue_depth", dto.MetricType_GAUGE, "[BETA] Current depth of workqueue"},
		{"workqueue_adds_total", dto.MetricType_COUNTER, "[BETA] Total number of adds handled by workqueue"},
		{"workqueue_queue_duration_seconds", dto.MetricType_HISTOGRAM, "[BETA] How long in seconds an item stays in workqueue before being requested."},
		{"workqueue_work_duration_seconds", dto.MetricType_HISTOGRAM, "[BETA] How long in seconds processing an item from workqueue takes."},
		{"workqueue_unfinished_work_seconds", dto.MetricType_GAUGE, "[BETA] How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases."},
		{"workqueue_longest_running_processor_seconds", dto.MetricType_GAUGE, "[BETA] How many seconds has the longest running processor for workqueue been running."},
		{"workqueue_retries_total", dto.MetricType_COUNTER, "[BETA] Total number of retries handled by workqueue"},
	}
	if len(got) != len(families)+1 {
		t.Errorf("scraped %d families, want client-go's seven and workqueue_delayed_depth", len(got))
	}
	for _, want := range families {
		f := got[want.name]
		if f == nil {
			t.Errorf("no family %s", want.name)
			continue
		}
		if f.GetType() != want.kind || f.GetHelp() != want.help {
			t.Errorf("%s: %v %q; want %v %q", want.name, f.GetType(), f.GetHelp(), want.kind, want.help)
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != 1 || m.GetLabel()[0].GetName() != "name" || m.GetLabel()[0].GetValue() != "q" {
				t.Errorf("%s has labels %v, want only name=\"q\"", want.name, m.GetLabel())
			}
		}
	}
	for _, name := range []string{"workqueue_queue_duration_seconds", "workqueue_work_duration_seconds"} {
		var bounds []float64
		for _, b := range got.histogram(t, name, "name", "q").GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) { // the text format writes +Inf out
				bounds = append(bounds, b.GetUpperBound())
			}
		}
		if len(bounds) != 10 {
			t.Fatalf("%s has %d buckets, want 10: %v", name, len(bounds), bounds)
		}
		for i, le := 0, 1e-8; i < len(bounds); i, le = i+1, le*10 {
			if !approx(bounds[i], le) {
				t.Errorf("%s bucket %d is le=%g, want %g", name, i, bounds[i], le)
			}
		}
	}
}

// TestRegistersOnlyInTheGivenRegistry checks that the global registry is left alone.
func TestRegistersOnlyInTheGivenRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	provider.NewAddsMetric("mine").Inc()
	if v := gather(t, reg).counter(t, "workqueue_adds_total", "name", "mine"); v != 1 {
		t.Errorf("workqueue_adds_total{name=\"mine\"} = %v in the given registry, want 1", v)
	}
	for name := range gather(t, prometheus.DefaultGatherer) {
		if strings.HasPrefix(name, "workqueue_") {
			t.Errorf("%s is in the global registry", name)
		}
	}
}

// TestQueuesOfOneNameShareSeries checks that two queues of the same name neither panic nor
// register twice: their counts add up in one series, as with client-go's provider.
func TestQueuesOfOneNameShareSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		config := workqueue.TypedQueueConfig[string]{Name: "twin", MetricsProvider: provider}
		first, second := workqueue.NewTypedWithConfig(config), workqueue.NewTypedWithConfig(config)
		defer first.ShutDown()
		defer second.ShutDown()
		first.Add("a")
		second.Add("a")
		second.Add("b")
		get(t, second, "a")
	})
	got := gather(t, reg)
	if n := len(got["workqueue_adds_total"].GetMetric()); n != 1 {
		t.Errorf("%d adds series, want 1", n)
	}
	if v := got.counter(t, "workqueue_adds_total", "name", "twin"); v != 3 {
		t.Errorf("adds = %v, want 3", v)
	}
	if v := got.gauge(t, "workqueue_depth", "name", "twin"); v != 2 {
		t.Errorf("depth = %v, want 2", v)
	}
}

// TestDelayedItemsOfOneNameAddUp checks that workqueue_delayed_depth, set by each queue to its
// own count, counts the delayed items of every queue of the name, as workqueue_depth does.
func TestDelayedItemsOfOneNameAddUp(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		config := workqueue.TypedDelayingQueueConfig[string]{Name: "twin", MetricsProvider: provider}
		first, second := workqueue.NewTypedDelayingQueueWithConfig(config), workqueue.NewTypedDelayingQueueWithConfig(config)
		defer second.ShutDown()
		first.AddAfter("a", time.Hour)
		first.AddAfter("b", time.Hour)
		second.AddAfter("a", time.Hour)
		synctest.Wait() // the provider records asynchronously (see Provider.AsyncMetrics)
		if v := gather(t, reg).gauge(t, "workqueue_delayed_depth", "name", "twin"); v != 3 {
			t.Errorf("delayed depth = %v, want 3", v)
		}
		first.ShutDown() // drops its delayed items
		if v := gather(t, reg).gauge(t, "workqueue_delayed_depth", "name", "twin"); v != 1 {
			t.Errorf("delayed depth after the first queue's shutdown = %v, want 1", v)
		}
	})
}

// TestProvidersOfOneRegistryAreOne checks that a second provider for the same registry is the
// first one, also through a registerer that adds labels, so its queues share their series.
func TestProvidersOfOneRegistryAreOne(t *testing.T) {
	reg := prometheus.NewRegistry()
	wrapped := prometheus.WrapRegistererWith(prometheus.Labels{"component": "controller"}, reg)
	first := newProvider(t, wrapped)
	second := newProvider(t, wrapped)
	if first != second {
		t.Fatal("a second provider for the same registry is a new one")
	}
	first.NewAddsMetric("q").Inc()
	second.NewAddsMetric("q").Inc()
	if v := gather(t, reg).counter(t, "workqueue_adds_total", "name", "q", "component", "controller"); v != 2 {
		t.Errorf("workqueue_adds_total{component=\"controller\",name=\"q\"} = %v, want 2", v)
	}
}

// TestConflictingMetricsAreAnError checks that a registry holding other workqueue metrics makes
// NewProvider fail: controller-runtime's depth, with more labels, or a depth gauge of the same
// shape registered by someone else. It also checks that a failure leaves none of the provider's
// metrics behind: once the other depth is gone, a provider fits.
func TestConflictingMetricsAreAnError(t *testing.T) {
	controllerRuntime := prometheus.NewRegistry()
	controllerRuntime.MustRegister(prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_depth", Help: "Current depth of workqueue by workqueue and priority",
	}, []string{"name", "controller", "priority"}))
	if provider, err := wqprometheus.NewProvider(controllerRuntime); err == nil || provider != nil {
		t.Errorf("NewProvider beside controller-runtime's depth = %v, %v; want an error", provider, err)
	}

	reg := prometheus.NewRegistry()
	sameShape := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "workqueue_depth", Help: "[BETA] Current depth of workqueue",
	}, []string{"name"})
	reg.MustRegister(sameShape)
	if provider, err := wqprometheus.NewProvider(reg); err == nil || provider != nil {
		t.Errorf("NewProvider beside another depth gauge = %v, %v; want an error", provider, err)
	}
	reg.Unregister(sameShape)
	if _, err := wqprometheus.NewProvider(reg); err != nil {
		t.Errorf("the failed NewProvider left metrics registered: %v", err)
	}
}

func TestNilRegistererPanics(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.HasPrefix(p.(string), "workqueue:") {
			t.Errorf("recovered %v, want a workqueue: panic", p)
		}
	}()
	wqprometheus.NewProvider(nil)
}

func TestNilOptionPanics(t *testing.T) {
	reg := prometheus.NewRegistry()
	func() {
		defer func() {
			if p := recover(); p == nil || p != "workqueue: NewProvider: nil Option" {
				t.Errorf("recovered %v, want the workqueue: panic for a nil Option", p)
			}
		}()
		wqprometheus.NewProvider(reg, wqprometheus.WithNativeHistograms(), nil)
	}()
	// The panic came before anything was registered: the registry is still free.
	if _, err := wqprometheus.NewProvider(reg); err != nil {
		t.Errorf("NewProvider after the panic: %v", err)
	}
}

// TestGivenUpCounter: each item a queue gives up on (MaxRetries) counts once on
// workqueue_given_up_total of its name, on a rate-limiting queue and on a priority queue.
func TestGivenUpCounter(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		limiter := workqueue.DefaultTypedControllerRateLimiter[string]()
		fifo := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{
			Name: "fifo", MetricsProvider: provider, MaxRetries: 1,
		})
		prio := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{
			Name: "prio", MetricsProvider: provider, MaxRetries: 2,
		})
		for range 3 { // fifo: a retry, a give-up, a retry; prio: two retries, a give-up
			fifo.AddRateLimited("a")
			prio.AddRateLimited("a")
		}
		fifo.AddRateLimited("a") // fifo's second give-up
		fifo.ShutDown()
		prio.ShutDown()
	})
	got := gather(t, reg)
	for name, want := range map[string]float64{"fifo": 2, "prio": 1} {
		if v := got.counter(t, "workqueue_given_up_total", "name", name); v != want {
			t.Errorf("workqueue_given_up_total{name=%q} = %v, want %v", name, v, want)
		}
	}
}
