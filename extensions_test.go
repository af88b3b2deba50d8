package workqueue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue"
)

// extended returns a queue of every kind with its extensions.
var extended = map[string]func() workqueue.TypedExtensions[string]{
	"plain": func() workqueue.TypedExtensions[string] { return workqueue.NewTyped[string]() },
	"custom storage": func() workqueue.TypedExtensions[string] {
		storage := &tracingString{Queue: workqueue.DefaultQueue[string]()}
		return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Queue: storage})
	},
	"rate-limiting": func() workqueue.TypedExtensions[string] {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		return q.(workqueue.TypedExtensions[string])
	},
}

// tracingString is a custom storage, which queues do not read ahead.
type tracingString struct{ workqueue.Queue[string] }

// base gives the client-go methods of an extended queue.
func base(q workqueue.TypedExtensions[string]) workqueue.TypedInterface[string] {
	return q.(workqueue.TypedInterface[string])
}

func TestGetWithContextGivesUpWithoutTakingAnything(t *testing.T) {
	for name, build := range extended {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ext := build()
				q := base(ext)
				defer q.ShutDown()
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				_, shutdown, err := ext.GetWithContext(ctx)
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				assert.False(t, shutdown)

				q.Add("a")
				synctest.Wait()
				snap := ext.Snapshot()
				assert.Equal(t, 1, snap.Queued, "the item waits for the next getter")
				assert.Equal(t, 0, snap.Processing, "nothing was handed to the getter that left")
				item, _, err := ext.GetWithContext(context.Background())
				require.NoError(t, err)
				assert.Equal(t, "a", item)
				q.Done(item)
			})
		})
	}
}

func TestGetWithContextAlreadyDone(t *testing.T) {
	q := workqueue.NewTyped[string]()
	defer q.ShutDown()
	q.Add("a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := q.GetWithContext(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, q.Len(), "a done context takes nothing, even with an item waiting")
}

func TestGetWithContextAfterShutDown(t *testing.T) {
	q := workqueue.NewTyped[string]()
	q.Add("a")
	q.ShutDown()
	item, shutdown, err := q.GetWithContext(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, "a", item)
	assert.False(t, shutdown)
	q.Done(item)
	_, shutdown, err = q.GetWithContext(context.Background())
	assert.NoError(t, err)
	assert.True(t, shutdown)
}

// TestScalingWorkersDownLosesNothing: workers come and go with cancelled contexts while items
// keep arriving; every item is processed exactly once and nothing is left in processing.
func TestScalingWorkersDownLosesNothing(t *testing.T) {
	for name, build := range extended {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ext := build()
				q := base(ext)
				var mu sync.Mutex
				processed := map[string]int{}
				var workers sync.WaitGroup
				worker := func(ctx context.Context) {
					for {
						item, shutdown, err := ext.GetWithContext(ctx)
						if err != nil || shutdown {
							return
						}
						mu.Lock()
						processed[item]++
						mu.Unlock()
						time.Sleep(time.Millisecond)
						q.Done(item)
					}
				}
				const items = 400
				for round := range 8 {
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(5+round)*time.Millisecond)
					for range 4 {
						workers.Go(func() { worker(ctx) })
					}
					for i := range items / 8 {
						q.Add(fmt.Sprint(round*items/8 + i))
					}
					workers.Wait()
					cancel()
				}
				workers.Go(func() { worker(context.Background()) })
				q.ShutDownWithDrain()
				workers.Wait()
				assert.Len(t, processed, items)
				for item, n := range processed {
					assert.Equal(t, 1, n, "item %s", item)
				}
				assert.Equal(t, workqueue.Snapshot{ShuttingDown: true}, ext.Snapshot())
			})
		})
	}
}

func TestShutDownWithDrainContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTyped[string]()
		q.Add("done in time")
		q.Add("stuck")
		first, _ := q.Get()
		stuck, _ := q.Get()
		go func() {
			time.Sleep(time.Second)
			q.Done(first)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		inFlight, err := q.ShutDownWithDrainContext(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, []string{stuck}, inFlight)
		assert.Equal(t, time.Minute, time.Since(start), "gave up at the deadline")
		assert.True(t, q.ShuttingDown())
		q.Done(stuck)
	})
}

func TestShutDownWithDrainContextDrained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTyped[string]()
		q.Add("a")
		a, _ := q.Get()
		go func() {
			time.Sleep(time.Second)
			q.Done(a)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		inFlight, err := q.ShutDownWithDrainContext(ctx)
		assert.NoError(t, err)
		assert.Empty(t, inFlight)
		assert.Equal(t, time.Second, time.Since(start), "returned when the last Done came")
	})
}

func TestAddBatch(t *testing.T) {
	q := workqueue.NewTyped[string]()
	defer q.ShutDown()
	batch := []string{"c", "a", "b", "a"}
	q.AddBatch(batch...)
	batch[0] = "changed" // the queue copied the batch
	assert.Equal(t, 3, q.Len())
	assert.Equal(t, []string{"c", "a", "b"}, drainOrder[string](q))
	q.AddBatch()
	assert.Equal(t, 0, q.Len())
}

func TestAddBatchIsAtomic(t *testing.T) {
	q := workqueue.NewTyped[int]()
	defer q.ShutDown()
	batch := make([]int, 1000)
	for i := range batch {
		batch[i] = i
	}
	lens := make(chan int, 1)
	go func() {
		for n := q.Len(); ; n = q.Len() {
			if n != 0 {
				lens <- n
				return
			}
		}
	}()
	q.AddBatch(batch...)
	assert.Equal(t, 1000, <-lens, "another goroutine sees all of the batch or none")
}

func TestAddBatchBadInput(t *testing.T) {
	q := workqueue.New()
	defer q.ShutDown()
	assert.Panics(t, func() { q.AddBatch("ok", []int{1}) })
	assert.Equal(t, 0, q.Len(), "nothing is added when one item is not hashable")
	q.ShutDown()
	q.AddBatch("after shutdown")
	assert.Equal(t, 0, q.Len())
}

func TestSnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedItemBasedRateLimiter[string]())
		ext := q.(workqueue.TypedExtensions[string])
		defer q.ShutDown()
		assert.Equal(t, workqueue.Snapshot{}, ext.Snapshot())
		q.Add("a")
		q.Add("b")
		q.Add("c")
		a, _ := q.Get()
		time.Sleep(time.Minute)
		b, _ := q.Get()
		q.Add(a)
		q.AddAfter("later", time.Hour)
		q.AddRateLimited("retried")
		time.Sleep(time.Second)
		assert.Equal(t, workqueue.Snapshot{
			Queued:         2, // c, and retried, due after 1ms
			Processing:     2, // a and b
			Dirty:          1, // a
			Delayed:        1, // later
			OldestInFlight: time.Minute + time.Second,
		}, ext.Snapshot())
		q.Done(a)
		q.Done(b)
	})
}

// After shutdown the callers apply their own commands; each must read the clock afresh, or an
// item taken now would count as in flight since an earlier command.
func TestSnapshotAfterShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTyped[string]()
		q.AddBatch("x", "y")
		x, _ := q.Get()
		y, _ := q.Get()
		q.AddBatch("x", "y") // both go back into the queue at Done, shutdown or not
		q.ShutDown()
		q.Done(x)
		x, _ = q.Get()
		time.Sleep(time.Hour)
		q.Done(y)
		y, _ = q.Get()
		q.Done(x)
		ext := any(q).(workqueue.TypedExtensions[string])
		assert.Equal(t, workqueue.Snapshot{Processing: 1, ShuttingDown: true}, ext.Snapshot(),
			"y was taken just now: it is the oldest in flight, for 0s")
		q.Done(y)
	})
}

func TestDelayedMetric(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &delayedProvider{}
		q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "d", MetricsProvider: mp})
		defer q.ShutDown()
		q.AddAfter("a", time.Second)
		q.AddAfter("b", 2*time.Second)
		q.AddAfter("a", time.Hour) // the same item: still two waiting
		assert.Equal(t, 2.0, mp.delayed.value())
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, 1.0, mp.delayed.value())
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, 0.0, mp.delayed.value())
		assert.Equal(t, 2, mp.depth.count())
	})
}

type delayedProvider struct {
	provider
	delayed metric
}

func (p *delayedProvider) NewDelayedMetric(string) workqueue.SettableGaugeMetric { return &p.delayed }

func ExampleTypedExtensions() {
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	ext := queue.(workqueue.TypedExtensions[string])
	ext.AddBatch("default/web", "default/db")

	// A worker that can be stopped without shutting the queue down.
	ctx, stop := context.WithCancel(context.Background())
	reconciled := make(chan string)
	go func() {
		defer close(reconciled)
		for {
			key, shutdown, err := ext.GetWithContext(ctx)
			if err != nil || shutdown {
				return
			}
			reconciled <- key
			queue.Done(key)
		}
	}()
	fmt.Println("reconciled", <-reconciled)
	fmt.Println("reconciled", <-reconciled)
	stop()
	<-reconciled // closed once the worker's GetWithContext has given up

	// Shut down, but wait for stuck workers at most a second.
	deadline, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	inFlight, err := ext.ShutDownWithDrainContext(deadline)
	fmt.Println("still in flight:", inFlight, errors.Is(err, context.DeadlineExceeded))
	// Output:
	// reconciled default/web
	// reconciled default/db
	// still in flight: [] false
}
