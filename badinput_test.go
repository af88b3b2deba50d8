package workqueue_test

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue"
)

func TestUnhashableItemsPanicInTheCallerAndTheQueueGoesOn(t *testing.T) {
	q := workqueue.NewRateLimitingQueue(workqueue.DefaultItemBasedRateLimiter())
	defer q.ShutDown()
	type keyed struct{ key any }
	calls := map[string]func(item any){
		"Add":            q.Add,
		"AddAfter":       func(item any) { q.AddAfter(item, time.Second) },
		"AddRateLimited": q.AddRateLimited,
		"Done":           q.Done,
		"Forget":         q.Forget,
		"NumRequeues":    func(item any) { q.NumRequeues(item) },
	}
	items := []struct {
		item       any
		unhashable string // the type that the runtime's error names
	}{
		{[]int{1}, "[]int"},
		{map[string]int{}, "map[string]int"},
		{keyed{key: []byte("x")}, "[]uint8"},
	}
	for method, call := range calls {
		for _, tc := range items {
			err := panicOf(func() { call(tc.item) })
			require.Error(t, err, "%s(%T) did not panic", method, tc.item)
			_, ok := err.(runtime.Error)
			assert.True(t, ok, "%s(%T) panics with a %T, not a runtime.Error as client-go's map does",
				method, tc.item, err)
			var cause runtime.Error
			require.True(t, errors.As(errors.Unwrap(err), &cause), "%s(%T) wraps the runtime's error: %v",
				method, tc.item, err)
			assert.Regexp(t, "hash of unhashable type:? "+regexp.QuoteMeta(tc.unhashable)+"$", cause.Error())
			assert.EqualError(t, err, fmt.Sprintf("workqueue: %s: an item of type %T cannot be a queue key: %v",
				method, tc.item, cause))
		}
	}
	q.Add(keyed{key: "hashable"})
	item, shutdown := q.Get()
	assert.False(t, shutdown)
	assert.Equal(t, keyed{key: "hashable"}, item)
	q.Done(item)
}

// panicOf returns what f panics with, as an error, or nil.
func panicOf(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = errors.New(r.(string))
			}
		}
	}()
	f()
	return nil
}

// faulty is a custom storage that panics on demand.
type faulty struct {
	workqueue.Queue[string]
	mu      sync.Mutex
	failing bool
}

func (f *faulty) fail(on bool) { f.mu.Lock(); f.failing = on; f.mu.Unlock() }
func (f *faulty) check() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing {
		panic("storage failure")
	}
}
func (f *faulty) Push(item string) { f.check(); f.Queue.Push(item) }
func (f *faulty) Pop() string      { f.check(); return f.Queue.Pop() }

func TestPanickingStorageSurfacesInTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		storage := &faulty{Queue: workqueue.DefaultQueue[string]()}
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Queue: storage})
		defer q.ShutDown()
		q.Add("a")
		a, _ := q.Get()
		q.Add("a") // due again after Done
		q.Add("b")

		storage.fail(true)
		assert.PanicsWithValue(t, "storage failure", func() { q.Add("c") })
		assert.PanicsWithValue(t, "storage failure", func() { q.Done(a) })
		assert.PanicsWithValue(t, "storage failure", func() { q.Get() })
		storage.fail(false)

		// Nothing was lost: a is still being processed and due again, b still waits, c was
		// never added.
		assert.Equal(t, 1, q.Len())
		q.Done(a)
		assert.Equal(t, []string{"b", "a"}, drainOrder[string](q))
	})
}

// faultyLimiter is a rate limiter from another package that panics.
type faultyLimiter struct {
	workqueue.TypedRateLimiter[string]
}

func (faultyLimiter) When(string) time.Duration { panic("limiter failure") }
func (faultyLimiter) Forget(string)             { panic("forget failure") }
func (faultyLimiter) NumRequeues(string) int    { panic("requeues failure") }

func TestPanickingLimiterSurfacesInTheCaller(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue[string](faultyLimiter{})
	defer q.ShutDown()
	q.Add("a")
	assert.PanicsWithValue(t, "limiter failure", func() { q.AddRateLimited("b") })
	assert.PanicsWithValue(t, "forget failure", func() { q.Forget("a") })
	assert.PanicsWithValue(t, "requeues failure", func() { q.NumRequeues("a") })
	assert.Equal(t, []string{"a"}, drainOrder[string](q), "the queue goes on")
}

// TestAZeroItemBucketPanicsInTheCaller: a zero ItemBucket has no map for its buckets. Its first
// wait panics in AddRateLimited's caller, as client-go's does, and the queue goes on.
func TestAZeroItemBucketPanicsInTheCaller(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue[string](&workqueue.TypedItemBucketRateLimiter[string]{})
	defer q.ShutDown()
	q.Add("a")
	assert.Panics(t, func() { q.AddRateLimited("b") })
	assert.Equal(t, []string{"a"}, drainOrder[string](q), "the queue goes on")
}

// faultyMetric panics when told to.
type faultyProvider struct {
	provider
	failing bool
}

func (p *faultyProvider) NewAddsMetric(string) workqueue.CounterMetric { return faultyCounter{p} }

type faultyCounter struct{ p *faultyProvider }

func (c faultyCounter) Inc() {
	if c.p.failing {
		panic("metric failure")
	}
}

// TestPanickingMetricSurfacesInTheCaller: a metric that panics as an item is added panics in
// Add's caller, once the item is added: a panicking metric loses no item, and an Add called
// again changes nothing. (client-go's metrics hear of the add first, and its Add adds
// nothing.) The queue goes on.
func TestPanickingMetricSurfacesInTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &faultyProvider{failing: true}
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: mp})
		defer q.ShutDown()
		assert.PanicsWithValue(t, "metric failure", func() { q.Add("a") })
		mp.failing = false
		assert.Equal(t, 1, q.Len(), "the Add that panicked added its item")
		q.Add("b")
		q.Add("a")
		assert.Equal(t, []string{"a", "b"}, drainOrder[string](q))
	})
}

func (p *faultyProvider) NewLatencyMetric(string) workqueue.HistogramMetric { return faultyLatency{p} }

type faultyLatency struct{ p *faultyProvider }

func (l faultyLatency) Observe(float64) {
	if l.p.failing {
		panic("latency failure")
	}
}

// TestPanickingMetricInGetSurfacesInTheCaller: a metric that panics as an item starts its
// processing panics in Get's caller, and the queue goes on. A Get that panics hands out
// nothing, so the item waits again, behind the others (client-go's Get loses it).
func TestPanickingMetricInGetSurfacesInTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &faultyProvider{}
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: mp})
		defer q.ShutDown()
		q.Add("a")
		q.Add("b")
		mp.failing = true
		assert.PanicsWithValue(t, "latency failure", func() { q.Get() })
		mp.failing = false
		assert.Equal(t, 2, q.Len(), "the item of the Get that panicked waits again")
		assert.Equal(t, []string{"b", "a"}, drainOrder[string](q))
		assert.Equal(t, 0, mp.depth.count(), "the depth counts the item again once it is back")
	})
}

// TestPanickingMetricInGetAfterShutDown: after shutdown, Get still hands out the items left, and
// one whose Get panicked is among them, whether it came from the items read ahead or was
// reserved on the spot.
func TestPanickingMetricInGetAfterShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &faultyProvider{}
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: mp})
		q.Add("a")
		q.ShutDown()
		mp.failing = true
		assert.PanicsWithValue(t, "latency failure", func() { q.Get() }, "read ahead")
		assert.PanicsWithValue(t, "latency failure", func() { q.Get() }, "given back, then reserved")
		mp.failing = false
		item, shutdown := q.Get()
		assert.Equal(t, "a", item)
		assert.False(t, shutdown)
		q.Done(item)
		_, shutdown = q.Get()
		assert.True(t, shutdown)
	})
}

// TestPanickingMetricInPriorityGet: a priority queue hands items out in its owner goroutine;
// a metric that panics there panics in Get's caller, and the item waits again.
func TestPanickingMetricInPriorityGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &faultyProvider{}
		q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Name: "q", MetricsProvider: mp})
		defer q.ShutDown()
		q.Add("a")
		mp.failing = true
		assert.PanicsWithValue(t, "latency failure", func() { q.Get() })
		mp.failing = false
		assert.Equal(t, []string{"a"}, drainOrder[string](q))
		assert.Equal(t, 0, mp.depth.count())
	})
}

func TestDoneOfAnItemNotBeingProcessed(t *testing.T) {
	q := workqueue.NewTyped[string]()
	defer q.ShutDown()
	q.Done("never added") // nothing happens
	q.Add("queued")
	q.Done("queued") // not handed out yet: client-go would queue it twice
	assert.Equal(t, 1, q.Len())
	item, _ := q.Get()
	q.Done(item)
	q.Done(item) // twice
	q.Add("queued")
	assert.Equal(t, []string{"queued"}, drainOrder[string](q))
	assert.Equal(t, 0, q.Len())
}

func TestExponentialBackoffAfterHugeFailureCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Nanosecond, time.Minute)
		for range 10000 {
			limiter.When("a")
		}
		q := workqueue.NewTypedRateLimitingQueue(limiter)
		defer q.ShutDown()
		q.AddRateLimited("a")
		time.Sleep(time.Minute - 1)
		synctest.Wait()
		assert.Equal(t, 0, q.Len(), "not before the cap")
		time.Sleep(1)
		synctest.Wait()
		assert.Equal(t, 1, q.Len(), "at the cap, not in the past")
	})
}

func TestEveryCallAfterShutDownReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := bubbleGoroutines()
		for _, drain := range []bool{false, true} {
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
			if drain {
				q.ShutDownWithDrain()
			} else {
				q.ShutDown()
			}
			q.Add("a")
			q.AddAfter("a", time.Second)
			q.AddAfter("a", 0)
			q.AddRateLimited("a")
			q.Forget("a")
			assert.Equal(t, 0, q.NumRequeues("a"))
			assert.Equal(t, 0, q.Len())
			_, shutdown := q.Get()
			assert.True(t, shutdown)
			q.Done("a")
			assert.True(t, q.ShuttingDown())
			q.ShutDown()
			q.ShutDownWithDrain()
			synctest.Wait()
			assert.Equal(t, before, bubbleGoroutines(), "the queue's goroutine is gone")
		}
	})
}

func TestConcurrentShutDowns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := bubbleGoroutines()
		q := workqueue.NewTypedDelayingQueue[int]()
		q.Add(1)
		item, _ := q.Get()
		var callers sync.WaitGroup
		for i := range 20 {
			callers.Go(func() {
				if i%2 == 0 {
					q.ShutDownWithDrain()
				} else {
					q.ShutDown()
				}
			})
		}
		// A drain that starts after the last ShutDown waits for the item, as in client-go.
		synctest.Wait()
		q.Done(item)
		callers.Wait()
		assert.True(t, q.ShuttingDown())
		synctest.Wait() // the owner's last act is to signal its exit: let it finish leaving
		assert.Equal(t, before, bubbleGoroutines(), "the queue's goroutine is gone")
	})
}

func TestConcurrentDrainsWaitForProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueue[int]()
		q.Add(1)
		item, _ := q.Get()
		var drains sync.WaitGroup
		returned := make(chan struct{}, 10)
		for range 10 {
			drains.Go(func() {
				q.ShutDownWithDrain()
				returned <- struct{}{}
			})
		}
		synctest.Wait()
		assert.Len(t, returned, 0, "no drain returns while the item is processed")
		q.Done(item)
		drains.Wait()
	})
}

func TestInvalidConstructionPanics(t *testing.T) {
	tests := map[string]func(){
		"nil limiter in max-of":  func() { workqueue.NewTypedMaxOfRateLimiter[string](nil) },
		"nil limiter, max wait":  func() { workqueue.NewTypedWithMaxWaitRateLimiter[string](nil, time.Second) },
		"negative max wait":      func() { workqueue.NewWithMaxWaitRateLimiter(workqueue.DefaultItemBasedRateLimiter(), -1) },
		"negative base delay":    func() { workqueue.NewItemExponentialFailureRateLimiter(-time.Second, time.Second) },
		"negative slow delay":    func() { workqueue.NewItemFastSlowRateLimiter(time.Second, -time.Second, 1) },
		"negative bucket burst":  func() { workqueue.NewItemBucketRateLimiter(1, -1) },
		"negative workers":       func() { workqueue.ParallelizeUntil(nil, -1, 10, func(int) {}) },
		"negative rate, buckets": func() { workqueue.NewTypedItemBucketRateLimiter[string](-1, 1) },
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				require.NotNil(t, r, "no panic")
				assert.Regexp(t, "^workqueue: ", r)
			}()
			f()
		})
	}
}

// client-go's queues accept a nil rate limiter: such a queue works as a delaying queue, and
// fails only where it asks the limiter, in the caller (controller-runtime's tests build one).
// Ours fails at the same calls, with a runtime.Error that says why, and goes on.
func TestANilRateLimiterFailsOnlyWhereItIsAsked(t *testing.T) {
	var nilExponential *workqueue.TypedItemExponentialFailureRateLimiter[string]
	queues := map[string]func() workqueue.TypedRateLimitingInterface[string]{
		"nil": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueue[string](nil)
		},
		"a nil pointer to one of ours": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueue[string](nilExponential)
		},
		"around another package's queue": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig[string](nil, workqueue.TypedRateLimitingQueueConfig[string]{
				DelayingQueue: &foreignDelaying{TypedDelayingInterface: workqueue.NewTypedDelayingQueue[string]()},
			})
		},
	}
	for name, newQueue := range queues {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueue()
				defer q.ShutDown()
				asks := map[string]func(){
					"AddRateLimited": func() { q.AddRateLimited("a") },
					"Forget":         func() { q.Forget("a") },
					"NumRequeues":    func() { q.NumRequeues("a") },
				}
				for method, ask := range asks {
					err := panicOf(ask)
					require.Error(t, err, "%s did not panic", method)
					_, ok := err.(runtime.Error)
					assert.True(t, ok, "%s panics with a %T, not a runtime.Error as client-go's does", method, err)
					assert.Regexp(t, "^workqueue: "+method+": the queue has no rate limiter: ", err.Error())
				}
				q.Add("a")
				q.AddAfter("b", time.Second)
				time.Sleep(time.Second)
				synctest.Wait()
				require.Equal(t, 2, q.Len(), "the failed calls added nothing, and the queue works")
				for _, want := range []string{"a", "b"} {
					item, shutdown := q.Get()
					assert.Equal(t, want, item)
					assert.False(t, shutdown)
					q.Done(item)
				}
			})
		})
	}
}

func TestMostNegativeAndLargestDelaysFromAFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: clock})
		defer q.ShutDown()
		q.AddAfter("max", math.MaxInt64)
		q.AddAfter("min", math.MinInt64)
		synctest.Wait()
		assert.Equal(t, 1, q.Len())
		clock.Step(math.MaxInt64 / 2)
		synctest.Wait()
		assert.Equal(t, 1, q.Len())
	})
}

// nilRetries is a provider whose retries counter is nil.
type nilRetries struct{ provider }

func (*nilRetries) NewRetriesMetric(string) workqueue.CounterMetric { return nil }

// TestAProviderThatReturnsNilLeavesNoGoroutine: a named delaying or rate-limiting queue whose
// provider returns a nil metric panics with a workqueue: message, and leaves no goroutine
// behind (issue 36: the queue's goroutine used to start before the retries counter was made).
// synctest.Test fails if a goroutine of its bubble is left blocked.
func TestAProviderThatReturnsNilLeavesNoGoroutine(t *testing.T) {
	build := map[string]func(){
		"delaying": func() {
			workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "q", MetricsProvider: &nilRetries{}})
		},
		"rate-limiting": func() {
			workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
				workqueue.TypedRateLimitingQueueConfig[string]{Name: "q", MetricsProvider: &nilRetries{}})
		},
		"priority": func() {
			workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Name: "q", MetricsProvider: &nilRetries{}})
		},
	}
	for name, f := range build {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := recovered(f)
				if s, _ := p.(string); !strings.HasPrefix(s, "workqueue: ") || !strings.Contains(s, "NewRetriesMetric returned nil") {
					t.Fatalf("panic %v, want a workqueue: message naming NewRetriesMetric", p)
				}
			})
		})
	}
}

// TestANilLimiterNamesTheConstructorCalled: the panic of a queue built with a typed nil limiter
// names the constructor the caller called (issue 36: NewTypedRateLimitingQueue's named
// NewTypedRateLimitingQueueWithConfig).
func TestANilLimiterNamesTheConstructorCalled(t *testing.T) {
	var nilExponential *workqueue.TypedItemExponentialFailureRateLimiter[string]
	q := workqueue.NewTypedRateLimitingQueue[string](nilExponential)
	defer q.ShutDown()
	err := panicOf(func() { q.AddRateLimited("a") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NewTypedRateLimitingQueue was given nil")
}
