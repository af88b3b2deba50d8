package workqueue_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue"
)

// shutdowns are the two ways to shut a queue down; most scenarios run with both.
var shutdowns = []struct {
	name string
	shut func(workqueue.Interface)
}{
	{"ShutDown", workqueue.Interface.ShutDown},
	{"ShutDownWithDrain", workqueue.Interface.ShutDownWithDrain},
}

// TestManyProducersAndConsumers: 50 producers add their number 50 times, 10 consumers work on
// what they get; nothing added after shutdown reaches a consumer, no item is worked on by two
// consumers at once, and the queue ends empty.
func TestManyProducersAndConsumers(t *testing.T) {
	for _, sd := range shutdowns {
		t.Run(sd.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := workqueue.New()
				var producers sync.WaitGroup
				for i := range 50 {
					producers.Go(func() {
						for range 50 {
							q.Add(i)
							time.Sleep(time.Millisecond)
						}
					})
				}
				var consumers sync.WaitGroup
				var mu sync.Mutex
				busy := map[any]bool{}
				for range 10 {
					consumers.Go(func() {
						for {
							item, quit := q.Get()
							if quit {
								return
							}
							assert.NotEqual(t, "added after shutdown", item)
							mu.Lock()
							assert.False(t, busy[item], "item %v worked on twice at once", item)
							busy[item] = true
							mu.Unlock()
							time.Sleep(3 * time.Millisecond)
							mu.Lock()
							busy[item] = false
							mu.Unlock()
							q.Done(item)
						}
					})
				}
				producers.Wait()
				sd.shut(q)
				q.Add("added after shutdown")
				consumers.Wait()
				assert.Equal(t, 0, q.Len())
			})
		})
	}
}

// TestAddWhileProcessing: every consumer adds each item it gets back once, while processing
// it; each item is then processed again, and the queue ends empty.
func TestAddWhileProcessing(t *testing.T) {
	for _, sd := range shutdowns {
		t.Run(sd.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := workqueue.New()
				for i := range 50 {
					q.Add(i)
				}
				var consumers sync.WaitGroup
				var mu sync.Mutex
				processed := map[any]int{}
				for range 10 {
					consumers.Go(func() {
						for {
							item, quit := q.Get()
							if quit {
								return
							}
							mu.Lock()
							processed[item]++
							again := processed[item] == 1
							mu.Unlock()
							if again {
								q.Add(item)
							}
							q.Done(item)
						}
					})
				}
				synctest.Wait() // every consumer blocked: all the work is done
				sd.shut(q)
				consumers.Wait()
				assert.Equal(t, 0, q.Len())
				for i := range 50 {
					assert.Equal(t, 2, processed[i], "item %d", i)
				}
			})
		})
	}
}

func TestLen(t *testing.T) {
	q := workqueue.New()
	defer q.ShutDown()
	q.Add("foo")
	assert.Equal(t, 1, q.Len())
	q.Add("bar")
	assert.Equal(t, 2, q.Len())
	q.Add("foo") // already waiting
	assert.Equal(t, 2, q.Len())
	item, _ := q.Get()
	assert.Equal(t, "foo", item)
	assert.Equal(t, 1, q.Len())
	q.Add("foo") // being processed: waits again once done
	assert.Equal(t, 1, q.Len())
	q.Done("foo")
	assert.Equal(t, 2, q.Len())
}

func TestReinsert(t *testing.T) {
	q := workqueue.New()
	defer q.ShutDown()
	q.Add("foo")
	item, _ := q.Get()
	require.Equal(t, "foo", item)
	q.Add(item) // while processing
	q.Done(item)
	item, _ = q.Get()
	require.Equal(t, "foo", item, "added while processing, it comes back after Done")
	q.Done(item)
	assert.Equal(t, 0, q.Len())
}

// tracing is a custom storage that records Touch calls.
type tracing struct {
	workqueue.Queue[any]
	mu      sync.Mutex
	touched []any
}

func (s *tracing) Touch(item any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touched = append(s.touched, item)
	s.Queue.Touch(item)
}

func (s *tracing) touches() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]any(nil), s.touched...)
}

func TestCollapse(t *testing.T) {
	storage := &tracing{Queue: workqueue.DefaultQueue[any]()}
	q := workqueue.NewWithConfig(workqueue.QueueConfig{Queue: storage})
	defer q.ShutDown()
	q.Add("bar")
	q.Add("bar")
	item, _ := q.Get()
	assert.Equal(t, "bar", item)
	q.Done(item)
	assert.Equal(t, 0, q.Len())
	assert.Equal(t, []any{"bar"}, storage.touches(), "the second Add touches the waiting item")
}

func TestCollapseWhileProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		storage := &tracing{Queue: workqueue.DefaultQueue[any]()}
		q := workqueue.NewWithConfig(workqueue.QueueConfig{Queue: storage})
		defer q.ShutDown()
		q.Add("foo")
		item, _ := q.Get()
		require.Equal(t, "foo", item)
		q.Add("foo")
		q.Add("foo")

		second := make(chan any)
		go func() {
			item, _ := q.Get()
			second <- item
			q.Done(item)
		}()
		synctest.Wait()
		select {
		case <-second:
			t.Fatal("a second worker got foo while the first still processes it")
		default:
		}
		q.Done("foo")
		assert.Equal(t, "foo", <-second)
		synctest.Wait()
		assert.Equal(t, 0, q.Len())
		assert.Empty(t, storage.touches(), "items being processed are not touched")
	})
}

func TestShutDownWithDrainWaitsForProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New()
		q.Add("foo")
		q.Add("bar")
		first, _ := q.Get()
		second, _ := q.Get()

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		_, shutdown := q.Get()
		assert.True(t, shutdown, "Get returns shutdown once the queue drains and is empty")
		q.Done(first)
		synctest.Wait()
		select {
		case <-drained:
			t.Fatal("drain returned while an item was still being processed")
		default:
		}
		q.Done(second)
		<-drained
	})
}

// A worker that loops from Done to Get takes its next item before its Done reaches the owner;
// the drain waits for that item too, so it returns only when the worker has done every item
// queued when it began, as client-go's does (its drain looks again only once the worker has
// the next item). On one processor the worker always takes it before the owner hears of the
// Done; on two, that is a race, as in client-go.
func TestShutDownWithDrainWaitsForTheItemAWorkerTookAfterDone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTyped[string]()
		var log []string // written by the worker, read once it has returned
		worker := make(chan struct{})
		go func() {
			defer close(worker)
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				time.Sleep(time.Second)
				log = append(log, item)
				q.Done(item)
			}
		}()
		for _, item := range []string{"a", "b", "c"} {
			q.Add(item)
		}
		synctest.Wait() // the worker is processing a
		start := time.Now()
		q.ShutDownWithDrain()
		assert.Equal(t, 3*time.Second, time.Since(start), "c is done 3 s in")
		<-worker
		assert.Equal(t, []string{"a", "b", "c"}, log)
	})
}

func TestShutDownDoesNotWaitForProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New()
		q.Add("foo")
		q.Add("bar")
		q.Get()
		q.Get()
		q.ShutDown() // returns although Done was never called
	})
}

func TestShutDownEndsADrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New()
		q.Add("foo")
		q.Get()
		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		select {
		case <-drained:
			t.Fatal("drain returned with an item in processing")
		default:
		}
		q.ShutDown()
		<-drained
	})
}

func TestDrainHandsOutAnItemAddedDuringProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New()
		q.Add("foo")
		gotten, _ := q.Get()
		q.Add("foo") // due again after Done

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		_, shutdown := q.Get()
		require.True(t, shutdown, "nothing waits while foo is processed")
		q.Done(gotten)
		again, shutdown := q.Get()
		require.False(t, shutdown, "Done put foo back: it is handed out")
		assert.Equal(t, "foo", again)
		q.Done(again)
		<-drained
		_, shutdown = q.Get()
		assert.True(t, shutdown)
	})
}

func TestGetHandsOutQueuedItemsAfterShutDown(t *testing.T) {
	q := workqueue.NewTyped[int]()
	for i := range 100 {
		q.Add(i)
	}
	q.ShutDown()
	assert.True(t, q.ShuttingDown())
	q.Add(1000) // ignored
	assert.Equal(t, 100, q.Len())
	for i := range 100 {
		item, shutdown := q.Get()
		require.False(t, shutdown)
		require.Equal(t, i, item, "in order")
		q.Done(item)
	}
	_, shutdown := q.Get()
	assert.True(t, shutdown)
	assert.Equal(t, 0, q.Len())
}

func TestDoneAfterShutDownStillRequeues(t *testing.T) {
	q := workqueue.NewTyped[string]()
	q.Add("a")
	a, _ := q.Get()
	q.Add("a") // due again
	q.ShutDown()
	_, shutdown := q.Get()
	require.True(t, shutdown, "a is processing, nothing waits")
	q.Done(a)
	item, shutdown := q.Get()
	require.False(t, shutdown)
	assert.Equal(t, "a", item, "as in client-go, Done after shutdown puts a dirty item back")
	q.Done(item)
	_, shutdown = q.Get()
	assert.True(t, shutdown)
}

func TestShutDownWithDrainAfterShutDownWaitsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTyped[string]()
		q.Add("a")
		a, _ := q.Get()
		q.ShutDown()
		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain() // as in client-go: waits for a, though the queue is shut down
			close(drained)
		}()
		synctest.Wait()
		select {
		case <-drained:
			t.Fatal("drain returned while a is processed")
		default:
		}
		q.Done(a)
		<-drained
	})
}

func TestGarbageCollection(t *testing.T) {
	type big struct{ data [1 << 10]byte }
	q := workqueue.New()
	defer q.ShutDown()
	collected := make(chan struct{})
	item := &big{}
	runtime.SetFinalizer(item, func(*big) { close(collected) })
	q.Add(item)
	got, _ := q.Get()
	q.Done(got)
	item, got = nil, nil
	for range 100 {
		runtime.GC()
		select {
		case <-collected:
			return
		default:
		}
	}
	t.Fatal("an item added, processed and done is still referenced by the queue")
}

func TestFairOrder(t *testing.T) {
	q := workqueue.NewTyped[string]()
	defer q.ShutDown()
	for _, s := range []string{"a", "b", "c", "a", "d", "b"} {
		q.Add(s)
	}
	var got []string
	for q.Len() > 0 {
		item, _ := q.Get()
		got = append(got, item)
		q.Done(item)
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, got)
}

// TestLinearizableAcrossGoroutines: once Add returns, a Len or Get started afterwards on any
// goroutine sees the item.
func TestLinearizableAcrossGoroutines(t *testing.T) {
	q := workqueue.NewTyped[int]()
	defer q.ShutDown()
	for i := range 2000 {
		q.Add(i)
		lens := make(chan int)
		go func() { lens <- q.Len() }()
		require.Equal(t, 1, <-lens, "item %d", i)
		items := make(chan int)
		go func() {
			item, _ := q.Get()
			items <- item
		}()
		item := <-items
		require.Equal(t, i, item)
		q.Done(item)
	}
}

func ExampleTyped() {
	q := workqueue.NewTyped[string]()
	for _, key := range []string{"default/web", "default/db", "default/web"} {
		q.Add(key) // the second default/web merges with the first, still waiting
	}
	var workers sync.WaitGroup
	for range 2 {
		workers.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				fmt.Println("reconciling", key)
				q.Done(key)
			}
		})
	}
	q.ShutDownWithDrain() // workers still get what is queued, then shutdown
	workers.Wait()
	// Unordered output:
	// reconciling default/web
	// reconciling default/db
}
