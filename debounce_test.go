package workqueue_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue"
)

// burst is the debounce window of these tests: 100 ms quiet, at most 300 ms.
var burst = workqueue.Debounce{Window: 100 * time.Millisecond, MaxWait: 300 * time.Millisecond}

// debouncedQueues builds every kind of queue with the window d, on string keys.
func debouncedQueues(d workqueue.Debounce) map[string]func() workqueue.TypedRateLimitingInterface[string] {
	limiter := func() workqueue.TypedRateLimiter[string] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
	}
	return map[string]func() workqueue.TypedRateLimitingInterface[string]{
		"fifo": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(limiter(), workqueue.TypedRateLimitingQueueConfig[string]{Debounce: d})
		},
		"grouped": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(limiter(), workqueue.TypedRateLimitingQueueConfig[string]{
				Debounce: d, Group: func(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns }})
		},
		"priority": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Debounce: d, RateLimiter: limiter()})
		},
	}
}

// getWithin returns the item a Get returns once the bubble has settled, or "" if it is still
// waiting, and the channel its answer will come on.
func startGet(q workqueue.TypedInterface[string]) chan string {
	got := make(chan string, 1)
	go func() {
		item, shutdown := q.Get()
		if shutdown {
			item = "shutdown"
		}
		got <- item
	}()
	return got
}

// ready returns what a Get started earlier has returned by now, or "" if it still waits.
func ready(got chan string) string {
	synctest.Wait()
	select {
	case item := <-got:
		return item
	default:
		return ""
	}
}

func TestDebounceHoldsABurstUntilItGoesQuiet(t *testing.T) {
	for name, build := range debouncedQueues(burst) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := build()
				defer q.ShutDown()
				got := startGet(q)
				for range 5 { // five changes, 20 ms apart
					q.Add("ns/a")
					time.Sleep(20 * time.Millisecond)
				}
				assert.Equal(t, 0, q.Len(), "an item waiting out its window is not counted")
				assert.Equal(t, 1, q.(workqueue.TypedExtensions[string]).Snapshot().Debouncing)
				assert.Equal(t, "", ready(got), "handed out during the burst")
				time.Sleep(79 * time.Millisecond) // 99 ms after the last add
				assert.Equal(t, "", ready(got), "handed out before the window ended")
				time.Sleep(time.Millisecond)
				assert.Equal(t, "ns/a", ready(got), "not handed out once quiet for the window")
				q.Done("ns/a")
				assert.Equal(t, 0, q.Len(), "the burst was handed out more than once")
				assert.Equal(t, 0, q.(workqueue.TypedExtensions[string]).Snapshot().Debouncing)
			})
		})
	}
}

func TestDebounceMaxWaitBoundsAnEndlessBurst(t *testing.T) {
	for name, build := range debouncedQueues(burst) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := build()
				defer q.ShutDown()
				got := startGet(q)
				start := time.Now()
				for time.Since(start) < 300*time.Millisecond {
					q.Add("ns/a") // every 50 ms: the window never ends by itself
					time.Sleep(50 * time.Millisecond)
					if item := ready(got); item != "" {
						assert.Equal(t, 300*time.Millisecond, time.Since(start), "handed out at the wrong instant")
						return
					}
				}
				assert.Equal(t, "ns/a", ready(got), "an item added every 50 ms was not handed out at MaxWait")
			})
		})
	}
}

// TestDebounceLeavesTimedAddsAlone: AddAfter and AddRateLimited keep the timing they ask for,
// and an item they make ready leaves its window: that processing covers the adds it was held
// for, so it is not handed out a second time when the window would have ended.
func TestDebounceLeavesTimedAddsAlone(t *testing.T) {
	for name, build := range debouncedQueues(burst) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := build()
				defer q.ShutDown()
				q.AddAfter("ns/now", 0)
				assert.Equal(t, 1, q.Len(), "AddAfter with no delay was held")
				item, _ := q.Get()
				q.Done(item)

				q.Add("ns/a") // held until 100 ms
				q.AddAfter("ns/a", 10*time.Millisecond)
				got := startGet(q)
				time.Sleep(10 * time.Millisecond)
				assert.Equal(t, "ns/a", ready(got), "the delayed add waited out the window")
				q.Done("ns/a")
				time.Sleep(200 * time.Millisecond)
				assert.Equal(t, 0, q.Len(), "the window released an item its delayed add covered")

				q.AddRateLimited("ns/b") // the limiter's first wait: 1 ms
				time.Sleep(time.Millisecond)
				synctest.Wait()
				assert.Equal(t, 1, q.Len(), "AddRateLimited waited out the window")
			})
		})
	}
}

// TestDebounceWhileProcessing: an add of an item in processing waits out the window, and the item
// is superseded at once; handed out again after its Done and its window, once.
func TestDebounceWhileProcessing(t *testing.T) {
	for name, build := range debouncedQueues(burst) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := build()
				defer q.ShutDown()
				ext := q.(workqueue.TypedExtensions[string])
				q.AddAfter("ns/a", 0)
				item, _ := q.Get()
				assert.False(t, ext.Superseded(item))
				q.Add(item)
				q.Add(item)
				assert.True(t, ext.Superseded(item), "an add during processing did not supersede the item")
				time.Sleep(50 * time.Millisecond)
				q.Done(item) // before the window ends
				assert.False(t, ext.Superseded(item), "an item not in processing is not superseded")
				assert.Equal(t, 0, q.Len())
				got := startGet(q)
				time.Sleep(49 * time.Millisecond)
				assert.Equal(t, "", ready(got), "handed out before its window ended")
				time.Sleep(time.Millisecond)
				assert.Equal(t, "ns/a", ready(got))

				q.Add(item) // the window ends while it is still in processing: due again at Done
				time.Sleep(100 * time.Millisecond)
				got = startGet(q)
				assert.Equal(t, "", ready(got), "handed out again while in processing")
				assert.True(t, ext.Superseded(item))
				q.Done(item)
				assert.Equal(t, "ns/a", ready(got), "not due again after Done")
			})
		})
	}
}

// TestDebounceShutDownDropsHeldItems: a window is a delay that adds restart, and ShutDown
// drops held items as it drops delayed ones (a priority queue hands nothing out after
// ShutDown anyway); an item in processing whose add waited is then not superseded any more.
func TestDebounceShutDownDropsHeldItems(t *testing.T) {
	for name, build := range debouncedQueues(burst) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := build()
				ext := q.(workqueue.TypedExtensions[string])
				q.AddAfter("ns/a", 0)
				item, _ := q.Get()
				q.Add(item)
				q.Add("ns/b")
				drained := make(chan struct{})
				go func() { q.ShutDownWithDrain(); close(drained) }()
				synctest.Wait()
				if name != "priority" {
					assert.False(t, ext.Superseded(item), "its held add was dropped")
					assert.Equal(t, 0, ext.Snapshot().Debouncing)
				}
				q.Done(item)
				<-drained
				_, shutdown := q.Get()
				assert.True(t, shutdown, "a held item was handed out after ShutDown")
				time.Sleep(time.Second)
				assert.Equal(t, 0, q.Len())
			})
		})
	}
}

// TestDebouncedPriorityKeepsTheHighest: adds of one item with different priorities merge, as
// controller-runtime's do: the highest wins, and the item waits out the window of the last.
func TestDebouncedPriorityKeepsTheHighest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Debounce: burst})
		defer q.ShutDown()
		high, low := 10, -5
		q.AddWithOpts(workqueue.AddOpts{Priority: &low}, "a")
		q.AddWithOpts(workqueue.AddOpts{Priority: &high}, "a")
		q.AddWithOpts(workqueue.AddOpts{Priority: &low}, "a")
		q.AddWithOpts(workqueue.AddOpts{Priority: &low}, "b")
		time.Sleep(100 * time.Millisecond)
		item, priority, _ := q.GetWithPriority()
		assert.Equal(t, "a", item, "the higher priority did not go first")
		assert.Equal(t, high, priority)
		q.Done(item)

		q.AddWithOpts(workqueue.AddOpts{After: 40 * time.Millisecond}, "c") // a delay bounds the window
		q.Add("c")
		time.Sleep(40 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 2, q.Len(), "the window held an item past the instant its delayed add asked for")
	})
}

func TestDebounceInGroupsJoinsTheTurnWhenReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Debounce: burst,
			Group: func(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns }})
		defer q.ShutDown()
		q.Add("x/1")
		time.Sleep(50 * time.Millisecond)
		q.Add("y/1")
		q.Add("x/2")
		time.Sleep(101 * time.Millisecond) // all three ready, x since 100 ms, y since 150
		var order []string
		for range 3 {
			item, _ := q.Get()
			order = append(order, item)
			q.Done(item)
		}
		assert.Equal(t, []string{"x/1", "y/1", "x/2"}, order, "held items did not join the turns as they became ready")
	})
}

func TestDebounceBadConfigPanics(t *testing.T) {
	bad := []workqueue.Debounce{
		{Window: -time.Millisecond},
		{Window: time.Second, MaxWait: -time.Second},
		{MaxWait: time.Second},
		{Window: time.Second, MaxWait: time.Millisecond},
	}
	limiter := workqueue.DefaultTypedControllerRateLimiter[string]()
	constructors := map[string]func(workqueue.Debounce){
		"NewTypedWithConfig": func(d workqueue.Debounce) {
			workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Debounce: d}).ShutDown()
		},
		"NewTypedDelayingQueueWithConfig": func(d workqueue.Debounce) {
			workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Debounce: d}).ShutDown()
		},
		"NewTypedRateLimitingQueueWithConfig": func(d workqueue.Debounce) {
			workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Debounce: d}).ShutDown()
		},
		"NewTypedPriorityQueue": func(d workqueue.Debounce) {
			workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Debounce: d}).ShutDown()
		},
	}
	for name, build := range constructors {
		for _, d := range bad {
			t.Run(fmt.Sprintf("%s %+v", name, d), func(t *testing.T) {
				defer func() {
					p := recover()
					require.NotNil(t, p, "no panic")
					assert.True(t, strings.HasPrefix(fmt.Sprint(p), "workqueue: "+name+": Debounce"), "panic %q", p)
				}()
				build(d)
			})
		}
	}
	inner, delaying := workqueue.NewTyped[string](), workqueue.NewTypedDelayingQueue[string]()
	defer inner.ShutDown()
	defer delaying.ShutDown()
	assert.PanicsWithValue(t, "workqueue: NewTypedDelayingQueueWithConfig: Group, MaxPerGroup and Debounce apply to the "+
		"queue it makes, not to config.Queue: set them on that queue's config", func() {
		workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Queue: inner, Debounce: burst})
	})
	assert.Panics(t, func() {
		workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{
			DelayingQueue: delaying, Debounce: burst})
	}, "a window set for a queue the constructor does not make")
	synctest.Test(t, func(t *testing.T) { // valid: a window equal to its maximum wait
		workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Debounce: workqueue.Debounce{Window: time.Second, MaxWait: time.Second}}).ShutDown()
	})
}

// debounceProvider is provider with the two metrics of a queue that debounces.
type debounceProvider struct {
	provider
	debouncing, absorbed metric
}

func (p *debounceProvider) NewDebouncingMetric(string) workqueue.SettableGaugeMetric {
	return &p.debouncing
}
func (p *debounceProvider) NewDebouncedAddsMetric(string) workqueue.CounterMetric { return &p.absorbed }

// TestDebounceMetrics: an item waiting out its window is in the debouncing gauge, not in the
// depth; the adds that restart a window count as absorbed, not as adds; the item counts as one
// add, and its queue latency, once its window ends, as for a delayed item.
func TestDebounceMetrics(t *testing.T) {
	for _, priority := range []bool{false, true} {
		t.Run(fmt.Sprint("priority ", priority), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &debounceProvider{}
				var q workqueue.TypedRateLimitingInterface[string]
				if priority {
					q = workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Name: "q", MetricsProvider: p, Debounce: burst})
				} else {
					q = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
						workqueue.TypedRateLimitingQueueConfig[string]{Name: "q", MetricsProvider: p, Debounce: burst})
				}
				defer q.ShutDown()
				for range 4 {
					q.Add("a")
					time.Sleep(10 * time.Millisecond)
				}
				q.Add("b")
				synctest.Wait()
				assert.Equal(t, 2.0, p.debouncing.value(), "items waiting out their window")
				assert.Equal(t, 3, p.absorbed.count(), "adds that restarted a window")
				assert.Equal(t, 0, p.depth.count(), "a held item counted in the depth")
				assert.Equal(t, 0, p.adds.count())
				time.Sleep(100 * time.Millisecond)
				synctest.Wait()
				assert.Equal(t, 0.0, p.debouncing.value())
				assert.Equal(t, 2, p.depth.count(), "released items not counted in the depth")
				assert.Equal(t, 2, p.adds.count(), "one add per burst")
				time.Sleep(5 * time.Millisecond)
				item, _ := q.Get()
				q.Done(item)
				synctest.Wait()
				assert.Equal(t, []float64{0.015}, p.latency.observed(), "the queue latency of a (ready at 130 ms, taken at 145) counts from its window's end")
				if !priority {
					assert.Equal(t, 0, p.retries.count(), "a debounced add counted as a retry")
				}
			})
		})
	}
	synctest.Test(t, func(t *testing.T) { // no window: the provider is not asked for the two metrics
		p := &countingDebounceProvider{}
		workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: p}).ShutDown()
		assert.Equal(t, 0, p.asked, "a queue without a window made the debounce metrics")
		workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: p, Debounce: burst}).ShutDown()
		assert.Equal(t, 2, p.asked)
	})
}

// countingDebounceProvider counts the calls for the debounce metrics.
type countingDebounceProvider struct {
	provider
	asked int
}

func (p *countingDebounceProvider) NewDebouncingMetric(string) workqueue.SettableGaugeMetric {
	p.asked++
	return &metric{}
}

func (p *countingDebounceProvider) NewDebouncedAddsMetric(string) workqueue.CounterMetric {
	p.asked++
	return &metric{}
}
