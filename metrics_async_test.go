package workqueue_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue"
)

// asyncProvider is a provider whose queues record without making their callers wait. Its adds
// counter blocks in Inc while gate is set, which holds the queue's goroutine where the test
// chooses.
type asyncProvider struct {
	provider
	gate chan struct{}
}

func (p *asyncProvider) AsyncMetrics() bool { return true }

func (p *asyncProvider) NewAddsMetric(string) workqueue.CounterMetric { return gated{p} }

// gated is the adds counter of an asyncProvider.
type gated struct{ p *asyncProvider }

func (g gated) Inc() {
	if g.p.gate != nil {
		<-g.p.gate
	}
	g.p.adds.Inc()
}

// TestAsyncMetricsMeasureFromTheCalls: with a provider that allows it, Add, Get and Done return
// while the queue's goroutine is still held inside a metric, and once it records, the queue
// latency and work duration run from the instants of the calls, not from when it recorded them.
func TestAsyncMetricsMeasureFromTheCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &asyncProvider{}
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "async", MetricsProvider: p})
		defer q.ShutDown()

		q.Add("a")
		synctest.Wait()
		assert.Equal(t, 1, p.adds.count())
		assert.Equal(t, 1, p.depth.count())

		p.gate = make(chan struct{})
		q.Add("b") // returns while the owner waits in the adds counter
		synctest.Wait()
		assert.Equal(t, 1, p.adds.count(), "b's add is held")

		time.Sleep(50 * time.Microsecond)
		item, _ := q.Get() // a was ready before the owner was held
		assert.Equal(t, "a", item)
		time.Sleep(25 * time.Microsecond)
		q.Done(item) // at 75µs
		time.Sleep(100 * time.Microsecond)
		close(p.gate) // the owner records at 175µs
		synctest.Wait()

		assert.Equal(t, 2, p.adds.count())
		assert.Equal(t, 1, p.depth.count(), "b waits")
		assert.Equal(t, []float64{50e-6}, p.latency.observed(), "a waited from its Add to its Get")
		assert.Equal(t, []float64{25e-6}, p.work.observed(), "a was processed from its Get to its Done")
	})
}

// TestAsyncMetricsLoseNoItemToAPanic: an add or a Done whose metric panics, with no caller
// waiting, takes effect all the same, and the panic is raised in the next caller that waits.
func TestAsyncMetricsLoseNoItemToAPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &asyncProvider{}
		q := workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "async", MetricsProvider: p})
		defer q.ShutDown()

		p.depth.fail(true)
		q.Add("a") // its depth.Inc panics in the owner
		synctest.Wait()
		p.depth.fail(false)
		assert.PanicsWithValue(t, "metric failed", func() { q.NumRequeues("a") }, "raised in the next caller that waits")
		item, _ := q.Get()
		assert.Equal(t, "a", item, "added all the same")

		p.work.failObserve(true)
		q.Add("a") // while processing: queued again at Done
		q.Done("a")
		synctest.Wait()
		p.work.failObserve(false)
		assert.PanicsWithValue(t, "metric failed", func() { q.NumRequeues("a") })
		item, _ = q.Get()
		assert.Equal(t, "a", item, "the Done took effect, so a came back")
		q.Done(item)
	})
}
