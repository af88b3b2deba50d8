package workqueue_test

import (
	"regexp"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/actorqueue/workqueue"
)

// bubbleGoroutines counts the goroutines of the running synctest bubble: unlike
// runtime.NumGoroutine, it ignores whatever the rest of the process is doing.
func bubbleGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return len(regexp.MustCompile(`(?m)^goroutine \d+ \[[^\]]*synctest bubble`).FindAll(buf, -1))
}

// kinds builds one queue of every kind, busy, so that any goroutine a kind might start (for
// delays, metrics or retries) is running.
var kinds = map[string]func() workqueue.TypedInterface[string]{
	"plain": func() workqueue.TypedInterface[string] { return workqueue.NewTyped[string]() },
	"named with metrics": func() workqueue.TypedInterface[string] {
		return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "m", MetricsProvider: &provider{}})
	},
	"delaying": func() workqueue.TypedInterface[string] { return workqueue.NewTypedDelayingQueue[string]() },
	"rate-limiting": func() workqueue.TypedInterface[string] {
		return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	},
	"rate-limiting with metrics": func() workqueue.TypedInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "r", MetricsProvider: &provider{}})
	},
	"delaying around a plain queue": func() workqueue.TypedInterface[string] {
		return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
			Queue: workqueue.NewTyped[string]()})
	},
	"rate-limiting around a delaying queue": func() workqueue.TypedInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{DelayingQueue: workqueue.NewTypedDelayingQueue[string]()})
	},
	"rate-limiting around a delaying queue around a plain queue": func() workqueue.TypedInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(
				workqueue.TypedDelayingQueueConfig[string]{Queue: workqueue.NewTyped[string]()})})
	},
}

func TestOneGoroutinePerQueue(t *testing.T) {
	for name, build := range kinds {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before := bubbleGoroutines()
				var queues []workqueue.TypedInterface[string]
				for range 10 {
					q := build()
					q.Add("a")
					item, _ := q.Get()
					q.Add("a")
					if d, ok := q.(workqueue.TypedDelayingInterface[string]); ok {
						d.AddAfter("b", time.Hour)
					}
					if r, ok := q.(workqueue.TypedRateLimitingInterface[string]); ok {
						r.AddRateLimited("c")
					}
					_ = item
					queues = append(queues, q)
				}
				synctest.Wait()
				assert.Equal(t, 10, bubbleGoroutines()-before, "goroutines for 10 live queues")
				for _, q := range queues {
					q.ShutDown()
				}
				synctest.Wait()
				assert.Equal(t, before, bubbleGoroutines(), "goroutines after ShutDown")
			})
		})
	}
}

func TestNoGoroutineLeftWhenShutDownReturns(t *testing.T) {
	for name, build := range kinds {
		t.Run(name, func(t *testing.T) {
			for range 50 {
				q := build()
				q.Add("a")
				if d, ok := q.(workqueue.TypedDelayingInterface[string]); ok {
					d.AddAfter("b", time.Hour)
				}
				q.ShutDown()
				goleak.VerifyNone(t)
			}
		})
	}
}

// TestIdleQueuesOnAnInjectedClock: on a clock passed in, an idle rate-limiting queue waits on it
// once every 10 s, as client-go's delaying queue does for its heartbeat, and no more after
// shutdown; a plain queue never waits on it. (On the real clock no queue wakes while idle: see
// TestIdleActorQueuesWakeNever in stress/bench.)
func TestIdleQueuesOnAnInjectedClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock, plainClock := newFakeClock(), newFakeClock()
		q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Clock: clock})
		plain := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Clock: plainClock})
		defer plain.ShutDown()
		assert.Equal(t, 1, clock.Afters(), "waits for its heartbeat once the constructor returns")
		q.AddAfter("a", time.Second)
		clock.Step(time.Second)
		synctest.Wait()
		item, _ := q.Get()
		q.Done(item)
		synctest.Wait()
		asked := clock.Afters()
		for range 600 {
			clock.Step(time.Second)
			plainClock.Step(time.Second)
			synctest.Wait()
		}
		assert.Equal(t, asked+60, clock.Afters(), "10 idle minutes: a heartbeat every 10 s")
		assert.Equal(t, 0, plainClock.Afters(), "a plain queue has no heartbeat")

		q.ShutDown()
		asked = clock.Afters()
		for range 60 {
			clock.Step(time.Second)
			synctest.Wait()
		}
		assert.Equal(t, asked, clock.Afters(), "no heartbeat after shutdown")
	})
}

// TestDelayingQueueAroundAForeignQueueStopsWithIt: a delaying queue around a queue of another
// package, whose delays have a goroutine of their own, sees that queue shut down directly when
// it next wakes, and then drops its delayed items and ends its goroutine. On a clock passed in
// it wakes every 10 s to look, as client-go's does; on the real clock, where an idle queue never
// wakes, it finds out when its item falls due.
func TestDelayingQueueAroundAForeignQueueStopsWithIt(t *testing.T) {
	clocks := map[string]struct {
		new  func() (workqueue.Clock, func(time.Duration))
		ends time.Duration // after creation
	}{
		"real clock": {func() (workqueue.Clock, func(time.Duration)) { return nil, time.Sleep }, time.Hour},
		"injected clock": {func() (workqueue.Clock, func(time.Duration)) {
			c := newFakeClock()
			return c, c.Step
		}, 10 * time.Second},
	}
	for name, clk := range clocks {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clock, pass := clk.new()
				before := bubbleGoroutines()
				inner := &foreign{TypedInterface: workqueue.NewTyped[string]()}
				q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
					Queue: inner, Clock: clock})
				q.AddAfter("a", time.Hour)
				synctest.Wait()
				assert.Equal(t, before+2, bubbleGoroutines(), "the inner queue's goroutine and the delays'")
				pass(time.Second)
				inner.ShutDown()
				synctest.Wait()
				pass(clk.ends - time.Second - time.Nanosecond)
				synctest.Wait()
				assert.Equal(t, before+1, bubbleGoroutines(), "before it wakes")
				pass(time.Nanosecond)
				synctest.Wait()
				assert.Equal(t, before, bubbleGoroutines(), "gone once it woke")
				pass(time.Hour)
				synctest.Wait()
				inner.mu.Lock()
				assert.Empty(t, inner.added, "the delayed item was dropped")
				inner.mu.Unlock()
				q.ShutDown()
			})
		})
	}
}

// A queue dropped without ShutDown, busy, ends its goroutine once the garbage collector finds
// it unreachable, as client-go's plain queue, which has none, is collected.
func TestADroppedQueueEndsItsGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // after the collection below
	busy := func(q workqueue.TypedInterface[string]) {
		q.Add("a")
		q.Add("b")
		q.Get() // a is in processing, b waits
		if d, ok := q.(workqueue.TypedDelayingInterface[string]); ok {
			d.AddAfter("c", time.Hour) // the owner's alarm is armed
		}
		if r, ok := q.(workqueue.TypedRateLimitingInterface[string]); ok {
			r.AddRateLimited("d")
		}
	}
	for _, build := range kinds {
		busy(build())
	}
	busy(workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{}))
	runtime.GC()
}

// A getter waiting in Get keeps its queue reachable, though nothing else refers to it: a
// delayed item may be due for it later, and a collected queue would shut down without handing
// the item out.
func TestAWaitingGetterKeepsItsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTyped[string]()
		kept := weak.Make(q)
		got := make(chan string)
		go func() {
			item, _ := q.Get()
			got <- item
		}()
		synctest.Wait() // the getter waits
		q = nil
		runtime.GC()
		if !assert.NotNil(t, kept.Value(), "the queue was collected while a getter waited") {
			return
		}
		kept.Value().Add("a")
		assert.Equal(t, "a", <-got)
		kept.Value().ShutDown()
	})
}
