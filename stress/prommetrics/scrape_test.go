package prommetrics

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	clientgo "k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/workqueue" // client-go's provider, set in its init
	testingclock "k8s.io/utils/clock/testing"

	actorqueue "github.com/actorqueue/workqueue"
	wqprometheus "github.com/actorqueue/workqueue/prometheus"
)

// rateLimiting is a rate-limiting queue of either library.
type rateLimiting = clientgo.TypedRateLimitingInterface[string]

// TestScrapesMatchComponentBase plays the same calls on a named rate-limiting queue of each
// library, on a fake clock, and compares the text exposition of every workqueue_* family the
// two have in common, help texts and histogram buckets included. workqueue_delayed_depth is
// actorqueue's own and is left out.
func TestScrapesMatchComponentBase(t *testing.T) {
	var scrapes [2]string
	for lib := range 2 {
		synctest.Test(t, func(t *testing.T) {
			clock := testingclock.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			var q rateLimiting
			var gather prometheus.Gatherer
			if lib == 0 {
				legacyregistry.Reset()
				q = clientgo.NewTypedRateLimitingQueueWithConfig(
					clientgo.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 8*time.Second),
					clientgo.TypedRateLimitingQueueConfig[string]{Name: "pods", Clock: clock})
				gather = legacyregistry.DefaultGatherer
			} else {
				reg := prometheus.NewRegistry()
				provider, err := wqprometheus.NewProvider(reg)
				if err != nil {
					t.Fatal(err)
				}
				q = actorqueue.NewTypedRateLimitingQueueWithConfig(
					actorqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 8*time.Second),
					actorqueue.TypedRateLimitingQueueConfig[string]{Name: "pods", Clock: clock, MetricsProvider: provider})
				gather = reg
			}
			synctest.Wait() // client-go's ticks count from when its goroutine starts
			step := func(d time.Duration) {
				clock.Step(d)
				synctest.Wait()
			}
			q.Add("a")
			q.Add("b")
			q.Add("a")
			step(20 * time.Millisecond)
			item, _ := q.Get()
			step(700 * time.Millisecond) // a tick with a in processing
			q.AddRateLimited(item)
			q.Done(item)
			step(time.Second) // a is due again
			for range 2 {
				item, _ := q.Get()
				step(3 * time.Millisecond)
				q.Forget(item)
				q.Done(item)
			}
			step(time.Second)
			q.ShutDown()
			scrapes[lib] = exposition(t, gather)
		})
	}
	if scrapes[0] != scrapes[1] {
		t.Errorf("component-base:\n%s\nactorqueue:\n%s", scrapes[0], scrapes[1])
	}
}

// exposition gathers g and returns, in the text format, the workqueue_* families other than
// workqueue_delayed_depth.
func exposition(t *testing.T, g prometheus.Gatherer) string {
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "workqueue_") || f.GetName() == "workqueue_delayed_depth" {
			continue
		}
		for _, m := range f.GetMetric() { // the instant a counter or histogram was made
			if m.GetCounter() != nil {
				m.GetCounter().CreatedTimestamp = nil
			}
			if m.GetHistogram() != nil {
				m.GetHistogram().CreatedTimestamp = nil
			}
		}
		if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}
