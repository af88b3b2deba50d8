package workqueue_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue"
)

// metric is a fake metric of every kind.
type metric struct {
	mu           sync.Mutex
	inc, dec     int
	set          float64
	sets         int
	observations []float64
	failing      bool // Inc panics
	failObserves bool // Observe panics
}

func (m *metric) Inc() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		panic("metric failed")
	}
	m.inc++
}

func (m *metric) Dec()          { m.mu.Lock(); m.dec++; m.mu.Unlock() }
func (m *metric) Set(f float64) { m.mu.Lock(); m.set = f; m.sets++; m.mu.Unlock() }
func (m *metric) Observe(f float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failObserves {
		panic("metric failed")
	}
	m.observations = append(m.observations, f)
}

func (m *metric) count() int    { m.mu.Lock(); defer m.mu.Unlock(); return m.inc - m.dec }
func (m *metric) setCalls() int { m.mu.Lock(); defer m.mu.Unlock(); return m.sets }
func (m *metric) value() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.set
}
func (m *metric) observed() []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]float64(nil), m.observations...)
}

// fail makes Inc panic, or stop panicking.
func (m *metric) fail(failing bool) { m.mu.Lock(); m.failing = failing; m.mu.Unlock() }

// failObserve makes Observe panic, or stop panicking.
func (m *metric) failObserve(failing bool) { m.mu.Lock(); m.failObserves = failing; m.mu.Unlock() }

type provider struct {
	depth, adds, latency, work, unfinished, longest, retries metric
}

func (p *provider) NewDepthMetric(string) workqueue.GaugeMetric            { return &p.depth }
func (p *provider) NewAddsMetric(string) workqueue.CounterMetric           { return &p.adds }
func (p *provider) NewLatencyMetric(string) workqueue.HistogramMetric      { return &p.latency }
func (p *provider) NewWorkDurationMetric(string) workqueue.HistogramMetric { return &p.work }
func (p *provider) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return &p.unfinished
}
func (p *provider) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return &p.longest
}
func (p *provider) NewRetriesMetric(string) workqueue.CounterMetric { return &p.retries }

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &provider{}
		q := workqueue.NewWithConfig(workqueue.QueueConfig{Name: "test", MetricsProvider: mp})
		defer q.ShutDown()

		q.Add("foo")
		assert.Equal(t, 1, mp.adds.count(), "metrics are current when Add returns")
		assert.Equal(t, 1, mp.depth.count())

		time.Sleep(50 * time.Microsecond)
		item, _ := q.Get()
		assert.Equal(t, []float64{5e-05}, mp.latency.observed(), "queue latency, current when Get returns")

		for range 5 {
			q.Add(item) // while processing: counted once
		}
		assert.Equal(t, 2, mp.adds.count())
		assert.Equal(t, 1, mp.depth.count())

		time.Sleep(25 * time.Microsecond)
		q.Done(item)
		assert.Equal(t, []float64{2.5e-05}, mp.work.observed(), "work duration, current when Done returns")
		assert.Equal(t, 1, mp.depth.count(), "back in the queue")

		item, _ = q.Get()
		assert.Equal(t, []float64{5e-05, 2.5e-05}, mp.latency.observed())
		assert.Equal(t, 0, mp.depth.count())

		// The unfinished-work gauges move every 500ms from the queue's creation.
		time.Sleep(500*time.Millisecond - 75*time.Microsecond)
		synctest.Wait()
		assert.Equal(t, 0.5-75e-06, mp.unfinished.value())
		assert.Equal(t, 0.5-75e-06, mp.longest.value())
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 1-75e-06, mp.unfinished.value())

		q.Done(item)
		assert.Len(t, mp.work.observed(), 2)
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 0.0, mp.unfinished.value(), "reset at the next tick once nothing is in flight")
		assert.Equal(t, 0.0, mp.longest.value())
	})
}

// TestMetricsOnTheRealClockTickOnlyWhileInFlight: on the real clock, the unfinished-work gauges
// move only while items are in processing, and once more to zero after, so an idle queue never
// wakes up. (client-go sets them every 500 ms, forever.)
func TestMetricsOnTheRealClockTickOnlyWhileInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &provider{}
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "idle", MetricsProvider: mp})
		defer q.ShutDown()
		time.Sleep(time.Hour)
		assert.Equal(t, 0, mp.unfinished.setCalls(), "an idle queue sleeps")

		q.Add("a")
		a, _ := q.Get()
		time.Sleep(time.Second + time.Millisecond)
		assert.Equal(t, 1.0, mp.unfinished.value(), "ticks every 500 ms from the queue's creation")
		q.Done(a)
		time.Sleep(time.Second)
		assert.Equal(t, 0.0, mp.unfinished.value())
		ticked := mp.unfinished.setCalls()
		time.Sleep(time.Hour)
		assert.Equal(t, ticked, mp.unfinished.setCalls(), "idle again: no more ticks")
	})
}

// TestMetricsOnAnInjectedClockTickUntilShutDown: on a clock of the caller's, the gauges keep
// client-go's schedule, idle or not, until shutdown: a test can wait for the clock's waiter and
// see each tick. stress/equivalence compares the calls with client-go's, step by step.
func TestMetricsOnAnInjectedClockTickUntilShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		mp := &provider{}
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "idle", MetricsProvider: mp, Clock: clock})
		assert.Equal(t, 1, clock.Afters(), "waits for the first tick once the constructor returns")
		for range 100 {
			clock.Step(500 * time.Millisecond)
			synctest.Wait()
		}
		assert.Equal(t, 100, mp.unfinished.setCalls())
		assert.Equal(t, 100, mp.longest.setCalls())

		q.ShutDown()
		for range 10 {
			clock.Step(500 * time.Millisecond)
			synctest.Wait()
		}
		assert.Equal(t, 100, mp.unfinished.setCalls(), "no tick after shutdown")
	})
}

func TestRetriesMetric(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &provider{}
		q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedItemBasedRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "retries", MetricsProvider: mp})
		q.AddAfter("a", 0)
		q.AddAfter("b", time.Second)
		q.AddRateLimited("c")
		assert.Equal(t, 3, mp.retries.count())
		assert.Equal(t, 1, mp.adds.count(), "only a is in the queue yet")
		q.ShutDown()
		q.AddAfter("d", time.Second)
		q.AddRateLimited("e")
		assert.Equal(t, 3, mp.retries.count(), "no retries are counted after shutdown")
	})
}

// lookingCounter is a retries counter that looks at its queue as it counts.
type lookingCounter struct {
	metric
	look func()
}

func (c *lookingCounter) Inc() { c.look(); c.metric.Inc() }

type lookingProvider struct {
	provider
	retries *lookingCounter
}

func (p *lookingProvider) NewRetriesMetric(string) workqueue.CounterMetric { return p.retries }

// client-go counts a retry in the caller's goroutine, outside its lock, so the counter may call
// the queue; with a limiter the queue adopted, waiting for the owner from inside the owner
// would hang every caller.
func TestARetriesCounterMayCallItsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var q workqueue.TypedRateLimitingInterface[string]
		var seen []int
		counter := &lookingCounter{look: func() { seen = append(seen, q.Len()) }}
		q = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "looking", MetricsProvider: &lookingProvider{retries: counter}})
		q.Add("a")
		q.AddRateLimited("b")
		q.AddRateLimited("c")
		assert.Equal(t, []int{1, 1}, seen, "b and c wait out their backoff")
		assert.Equal(t, 2, counter.count())
		assert.Equal(t, 1, q.NumRequeues("b"))
		q.ShutDown()
	})
}

func TestUnnamedQueuesRecordNothing(t *testing.T) {
	mp := &provider{}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedItemBasedRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{MetricsProvider: mp})
	defer q.ShutDown()
	q.Add("a")
	q.AddAfter("b", 0)
	item, _ := q.Get()
	q.Done(item)
	assert.Zero(t, mp.adds.count()+mp.retries.count()+len(mp.latency.observed())+len(mp.work.observed()))
}

// TestADueItemOutlivesAPanicOfTheMetrics: a delayed item falls due with no caller waiting; if
// the metrics panic as it is added, the next caller that waits gets the panic, and the item is
// added all the same.
func TestADueItemOutlivesAPanicOfTheMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &provider{}
		q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
			Name: "due", MetricsProvider: p,
		})
		defer q.ShutDown()
		q.AddAfter("x", time.Second)
		p.depth.fail(true)
		time.Sleep(time.Second)
		synctest.Wait()
		p.depth.fail(false)
		assert.PanicsWithValue(t, "metric failed", func() { q.Len() })
		assert.Equal(t, 1, q.Len(), "x was added")
		item, _ := q.Get()
		assert.Equal(t, "x", item)
		q.Done(item)
	})
}

// TestAPanicKeptForAQueueStaysWithIt: a queue whose metrics panicked with no caller waiting
// keeps the panic for its own next caller. A second queue sharing its limiter, whose calls to
// the limiter run in the first queue's goroutine, neither raises that panic nor loses its item.
func TestAPanicKeptForAQueueStaysWithIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &provider{}
		rl := workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, 0)
		first := workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{
			Name: "first", MetricsProvider: p,
		})
		defer first.ShutDown()
		second := workqueue.NewTypedRateLimitingQueue(rl)
		defer second.ShutDown()
		first.AddAfter("a", time.Second)
		p.depth.fail(true)
		time.Sleep(time.Second) // a falls due, and the depth metric panics
		synctest.Wait()
		p.depth.fail(false)

		assert.NotPanics(t, func() { second.AddRateLimited("b") })
		assert.Equal(t, 1, second.Len(), "b was added")
		assert.PanicsWithValue(t, "metric failed", func() { first.Len() }, "the panic is the first queue's")
	})
}
