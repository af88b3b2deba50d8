package prometheus_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/actorqueue/workqueue"
)

// The tests in this file drive one named queue through a known sequence of operations inside a
// synctest bubble, where time moves only when every goroutine waits, then scrape the registry
// over loopback, outside the bubble (an HTTP server cannot run in one), and check every series
// of the queue. Time in a bubble starts at the queue's creation, so the unfinished-work gauges
// move at 500ms, 1s, ... of the sequence; no operation falls on those instants.

// want is what a scrape should show for one queue.
type want struct {
	depth, adds         float64
	latency, work       observed
	unfinished, longest float64
	retries, delayed    float64
	delaying            bool // has the retries counter and the delayed-items gauge
}

// observed is the count and sum of a histogram, in seconds.
type observed struct {
	count uint64
	sum   float64
}

// check compares the scraped series of the queue called name with w.
func (w want) check(t *testing.T, got families, name string) {
	t.Helper()
	gauges := []struct {
		metric string
		want   float64
	}{
		{"workqueue_depth", w.depth},
		{"workqueue_unfinished_work_seconds", w.unfinished},
		{"workqueue_longest_running_processor_seconds", w.longest},
	}
	for _, g := range gauges {
		if v := got.gauge(t, g.metric, "name", name); !approx(v, g.want) {
			t.Errorf("%s{name=%q} = %v, want %v", g.metric, name, v, g.want)
		}
	}
	if v := got.counter(t, "workqueue_adds_total", "name", name); v != w.adds {
		t.Errorf("workqueue_adds_total{name=%q} = %v, want %v", name, v, w.adds)
	}
	histograms := []struct {
		metric string
		want   observed
	}{
		{"workqueue_queue_duration_seconds", w.latency},
		{"workqueue_work_duration_seconds", w.work},
	}
	for _, h := range histograms {
		s := got.histogram(t, h.metric, "name", name)
		if s.GetSampleCount() != h.want.count || !approx(s.GetSampleSum(), h.want.sum) {
			t.Errorf("%s{name=%q}: count %d, sum %v; want %d, %v",
				h.metric, name, s.GetSampleCount(), s.GetSampleSum(), h.want.count, h.want.sum)
		}
	}
	for _, metric := range []string{"workqueue_retries_total", "workqueue_delayed_depth"} {
		if m := got.metric(metric, "name", name); !w.delaying && m != nil {
			t.Errorf("a plain queue has %s{name=%q}", metric, name)
		}
	}
	if !w.delaying {
		return
	}
	if v := got.counter(t, "workqueue_retries_total", "name", name); v != w.retries {
		t.Errorf("workqueue_retries_total{name=%q} = %v, want %v", name, v, w.retries)
	}
	if v := got.gauge(t, "workqueue_delayed_depth", "name", name); v != w.delayed {
		t.Errorf("workqueue_delayed_depth{name=%q} = %v, want %v", name, v, w.delayed)
	}
}

// watchdog shuts q down if the sequence has not ended after a minute of bubble time, so that a
// queue that loses an item fails the test instead of moving its fake clock forever. Call the
// function it returns when the sequence ends.
func watchdog(t *testing.T, q interface{ ShutDown() }) (stop func() bool) {
	return time.AfterFunc(time.Minute, func() {
		t.Error("watchdog: the sequence did not end within a minute of queue time")
		q.ShutDown()
	}).Stop
}

// expectDelayed checks the delayed-items gauge of the queue called name, read without HTTP so
// that it can be read inside a bubble, while the queue runs.
func expectDelayed(t *testing.T, reg prometheus.Gatherer, name string, want float64) {
	t.Helper()
	synctest.Wait() // the provider records asynchronously (see Provider.AsyncMetrics)
	if v := gather(t, reg).gauge(t, "workqueue_delayed_depth", "name", name); v != want {
		t.Errorf("workqueue_delayed_depth{name=%q} = %v, want %v", name, v, want)
	}
}

func TestScrapePlainQueue(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "plain", MetricsProvider: provider})
		defer q.ShutDown()
		defer watchdog(t, q)()
		q.Add("a")
		q.Add("b")
		q.Add("a") // already queued: not an add
		time.Sleep(100 * time.Millisecond)
		get(t, q, "a") // waited 0.1s
		time.Sleep(200 * time.Millisecond)
		get(t, q, "b") // waited 0.3s
		time.Sleep(100 * time.Millisecond)
		q.Add("a") // at 0.4s, while processing: an add, and the wait starts now
		// At 0.5s: a has run 0.4s and b 0.2s.
		time.Sleep(300 * time.Millisecond)
		q.Done("a") // worked 0.6s; queued again
		time.Sleep(200 * time.Millisecond)
		get(t, q, "a") // at 0.9s: waited 0.5s since the add at 0.4s
		// At 1s: a has run 0.1s and b 0.7s.
		time.Sleep(300 * time.Millisecond)
		q.Done("a") // worked 0.3s
		q.Add("c")
		q.Add("d")
		get(t, q, "c") // waited 0s
	})
	want{
		depth:      1,
		adds:       5,
		latency:    observed{4, 0.1 + 0.3 + 0.5 + 0},
		work:       observed{2, 0.6 + 0.3},
		unfinished: 0.1 + 0.7,
		longest:    0.7,
	}.check(t, scrape(t, reg), "plain")
}

func TestScrapeDelayingQueue(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
			Name: "delaying", MetricsProvider: provider,
		})
		defer q.ShutDown()
		defer watchdog(t, q)()
		q.AddAfter("a", time.Second)
		q.AddAfter("b", 0) // added at once, and still a retry
		q.AddAfter("c", 2*time.Second)
		q.AddAfter("c", 500*time.Millisecond) // the earlier instant wins
		expectDelayed(t, reg, "delaying", 2)  // a and c
		get(t, q, "b")                        // waited 0s
		// At 0.5s: b has run 0.5s; c is added.
		time.Sleep(600 * time.Millisecond)
		expectDelayed(t, reg, "delaying", 1)
		get(t, q, "c") // waited 0.1s since it was due, not since AddAfter
		q.Done("b")    // worked 0.6s
		// At 1s: c has run 0.4s; a is added.
		time.Sleep(600 * time.Millisecond)
		expectDelayed(t, reg, "delaying", 0)
		get(t, q, "a") // waited 0.2s
	})
	want{
		depth:      0,
		adds:       3,
		latency:    observed{3, 0 + 0.1 + 0.2},
		work:       observed{1, 0.6},
		unfinished: 0.4,
		longest:    0.4,
		retries:    4,
		delaying:   true,
	}.check(t, scrape(t, reg), "delaying")
}

func TestScrapeRateLimitingQueue(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider := newProvider(t, reg)
	synctest.Test(t, func(t *testing.T) {
		limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, time.Minute)
		q := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{
			Name: "ratelimited", MetricsProvider: provider,
		})
		defer watchdog(t, q)()
		q.Add("a")
		get(t, q, "a") // waited 0s
		time.Sleep(300 * time.Millisecond)
		q.AddRateLimited("a") // first failure: due in 0.1s, at 0.4s
		expectDelayed(t, reg, "ratelimited", 1)
		q.Done("a") // worked 0.3s
		// At 0.4s, a is added; at 0.5s, nothing runs: the gauges go to zero.
		time.Sleep(300 * time.Millisecond)
		get(t, q, "a")        // at 0.6s: waited 0.2s
		q.AddRateLimited("a") // second failure: due in 0.2s, at 0.8s
		time.Sleep(100 * time.Millisecond)
		q.Done("a") // worked 0.1s
		time.Sleep(200 * time.Millisecond)
		get(t, q, "a") // at 0.9s: waited 0.1s
		q.Forget("a")
		if n := q.NumRequeues("a"); n != 0 {
			t.Errorf("NumRequeues after Forget = %d", n)
		}
		// At 1s: a has run 0.1s.
		time.Sleep(300 * time.Millisecond)
		q.AddRateLimited("b") // due at 1.3s, after the shutdown: never added
		expectDelayed(t, reg, "ratelimited", 1)
		q.ShutDown()
		q.AddRateLimited("c") // after shutdown: no retry, no add
		q.AddAfter("c", 0)
	})
	want{
		depth:      0,
		adds:       3,
		latency:    observed{3, 0 + 0.2 + 0.1},
		work:       observed{2, 0.3 + 0.1},
		unfinished: 0.1,
		longest:    0.1,
		retries:    3,
		delayed:    0, // b was dropped at shutdown
		delaying:   true,
	}.check(t, scrape(t, reg), "ratelimited")
}
