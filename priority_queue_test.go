package workqueue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue"
)

func priority(p int) *int { return &p }

// getAll gets and finishes every ready item, and returns them as "item/priority".
func getAll(q *workqueue.TypedPriorityQueue[string]) []string {
	var out []string
	for q.Len() > 0 {
		item, p, _ := q.GetWithPriority()
		out = append(out, fmt.Sprintf("%s/%d", item, p))
		q.Done(item)
	}
	return out
}

func newPQ() *workqueue.TypedPriorityQueue[string] {
	return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{})
}

func TestPriorityQueueOrder(t *testing.T) {
	q := newPQ()
	defer q.ShutDown()
	q.Add("a")
	q.AddWithOpts(workqueue.AddOpts{Priority: priority(1)}, "b", "c")
	q.Add("d")
	q.AddWithOpts(workqueue.AddOpts{Priority: priority(-1)}, "e")
	assert.Equal(t, []string{"b/1", "c/1", "a/0", "d/0", "e/-1"}, getAll(q))
}

func TestPriorityQueueMergesAdds(t *testing.T) {
	q := newPQ()
	defer q.ShutDown()
	q.AddWithOpts(workqueue.AddOpts{Priority: priority(1)}, "a")
	q.AddWithOpts(workqueue.AddOpts{Priority: priority(2)}, "b")
	q.AddWithOpts(workqueue.AddOpts{Priority: priority(3)}, "c")
	q.AddWithOpts(workqueue.AddOpts{Priority: priority(0)}, "c") // lower: kept at 3
	q.AddWithOpts(workqueue.AddOpts{Priority: priority(2)}, "a") // raised: behind b
	q.Add("b")
	assert.Equal(t, 3, q.Len())
	assert.Equal(t, []string{"c/3", "b/2", "a/2"}, getAll(q))
}

func TestPriorityQueueHoldsAnItemAddedWhileProcessed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		defer q.ShutDown()
		q.Add("a")
		a, _ := q.Get()
		q.AddWithOpts(workqueue.AddOpts{Priority: priority(5)}, "a")
		assert.Equal(t, 1, q.Len(), "counted as ready")
		got := make(chan string, 1)
		go func() {
			item, _ := q.Get()
			got <- item
		}()
		synctest.Wait()
		assert.Empty(t, got, "not handed out while it is processed")
		q.Done(a)
		assert.Equal(t, "a", <-got)
	})
}

func TestPriorityQueueDelays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		defer q.ShutDown()
		q.AddAfter("a", 50*time.Millisecond)
		q.AddAfter("a", 70*time.Millisecond) // the earlier instant wins
		q.AddWithOpts(workqueue.AddOpts{After: 30 * time.Millisecond, Priority: priority(1)}, "b")
		assert.Equal(t, 0, q.Len(), "waiting items are not counted")
		time.Sleep(30 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"b/1"}, getAll(q))
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"a/0"}, getAll(q))
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, 0, q.Len(), "merged: no second firing")

		q.AddAfter("c", time.Hour)
		q.Add("c") // ready at once
		assert.Equal(t, []string{"c/0"}, getAll(q))
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, 0, q.Len(), "the delayed add merged into the ready one")
	})
}

func TestPriorityQueueItemsFallingDueKeepThePriorityOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		defer q.ShutDown()
		q.AddWithOpts(workqueue.AddOpts{Priority: priority(0)}, "low")
		q.AddWithOpts(workqueue.AddOpts{After: time.Second, Priority: priority(5)}, "high")
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"high/5", "low/0"}, getAll(q))
	})
}

func TestPriorityQueueRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Minute)
		q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{RateLimiter: limiter})
		defer q.ShutDown()
		for range 7 {
			limiter.When("bar") // bar's next wait is 640ms
		}
		q.AddWithOpts(workqueue.AddOpts{RateLimited: true}, "foo", "bar")
		time.Sleep(5 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"foo/0"}, getAll(q))
		time.Sleep(635 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"bar/0"}, getAll(q))
		assert.Equal(t, 8, q.NumRequeues("bar"))
		q.Forget("bar")
		assert.Equal(t, 0, q.NumRequeues("bar"))

		q.AddWithOpts(workqueue.AddOpts{RateLimited: true, After: time.Millisecond}, "baz")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"baz/0"}, getAll(q), "the shorter of After and the limiter's wait")
	})
}

// TestPriorityQueueAsksALimiterOfItsOwnInTheCaller: a rate limiter not of this package runs in
// the caller's goroutine, as a client-go queue runs it, so it may look at the queue.
func TestPriorityQueueAsksALimiterOfItsOwnInTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &lookingLimiter{wait: time.Second}
		q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{RateLimiter: l})
		defer q.ShutDown()
		l.q = q
		q.Add("a")
		q.AddWithOpts(workqueue.AddOpts{RateLimited: true, Priority: priority(1)}, "b", "c")
		assert.Equal(t, []int{1, 1}, l.lens, "Len, asked by the limiter")
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"b/1", "c/1", "a/0"}, getAll(q))
	})
}

// TestPriorityQueueRaisesAPanicOfALimiterInTheCaller: a limiter of the caller's own that panics
// panics in the caller of AddWithOpts, which adds none of its items; the queue goes on.
func TestPriorityQueueRaisesAPanicOfALimiterInTheCaller(t *testing.T) {
	l := &lookingLimiter{panicOn: "boom"}
	q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{RateLimiter: l})
	defer q.ShutDown()
	assert.PanicsWithValue(t, "boom", func() {
		q.AddWithOpts(workqueue.AddOpts{RateLimited: true}, "a", "boom", "c")
	})
	assert.Equal(t, 0, q.Len(), "no item added, and no panic left for the next caller")
	q.AddWithOpts(workqueue.AddOpts{RateLimited: true}, "a")
	assert.Equal(t, []string{"a/0"}, getAll(q))
}

// TestPriorityQueueAddsWhatItsLimiterWasAskedAboutAsShutdownBegan: an add that has asked a
// limiter of the caller's own is applied even if the queue began to shut down meanwhile, as in
// controller-runtime, which asks only after its last look at the shutdown: the failure the
// limiter counted is not for an item dropped.
func TestPriorityQueueAddsWhatItsLimiterWasAskedAboutAsShutdownBegan(t *testing.T) {
	l := &lookingLimiter{}
	q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{RateLimiter: l})
	l.onWhen = q.ShutDown
	q.AddWithOpts(workqueue.AddOpts{RateLimited: true}, "a")
	assert.True(t, q.ShuttingDown())
	assert.Equal(t, 1, q.Len(), "a was added")
	q.AddWithOpts(workqueue.AddOpts{RateLimited: true}, "b")
	assert.Equal(t, 1, q.Len(), "after shutdown, an add does nothing")
}

// lookingLimiter is a rate limiter of a test's own: it gives every item the same wait, notes
// the length of q when asked, panics for the item panicOn, and runs onWhen at its first call.
type lookingLimiter struct {
	q       *workqueue.TypedPriorityQueue[string]
	wait    time.Duration
	panicOn string
	onWhen  func() // when set, called by When, once
	lens    []int
}

func (l *lookingLimiter) When(item string) time.Duration {
	if item == l.panicOn {
		panic(item)
	}
	if f := l.onWhen; f != nil {
		l.onWhen = nil
		f()
	}
	if l.q != nil {
		l.lens = append(l.lens, l.q.Len())
	}
	return l.wait
}

func (l *lookingLimiter) Forget(string)          {}
func (l *lookingLimiter) NumRequeues(string) int { return 0 }

func TestPriorityQueueShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		got := make(chan string, 1)
		go func() {
			item, _ := q.Get()
			got <- item
		}()
		synctest.Wait()
		q.Add("a") // to the getter that waits
		q.Add("b")
		q.Add("c")
		b, _ := q.Get()
		assert.Equal(t, "a", <-got)
		q.ShutDown()
		_, shutdown := q.Get()
		assert.True(t, shutdown, "no more items once shut down, though c is ready, as in controller-runtime")
		q.Add("d")
		assert.Equal(t, 1, q.Len(), "c is still counted; d was ignored")
		q.Done(b)
		q.Done("a")
	})
}

func TestPriorityQueueShutDownWithDrainWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		q.Add("a")
		a, _ := q.Get()
		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		assert.True(t, q.ShuttingDown())
		select {
		case <-drained:
			t.Fatal("drain returned while a is processed")
		default:
		}
		q.Done(a)
		<-drained
	})
}

// Once shutdown has begun, waiting items no longer become ready, drain or not: controller-
// runtime's waiting loop ends with the shutdown, and this queue's drain must not change what
// Len shows according to how long the workers take.
func TestPriorityQueueWaitingItemsStayWaitingDuringTheDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		q.Add("a")
		a, _ := q.Get()
		q.AddAfter("later", time.Second)
		go q.ShutDownWithDrain()
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, 0, q.Len(), "later fell due during the drain")
		assert.Equal(t, workqueue.Snapshot{Processing: 1, Delayed: 1, OldestInFlight: time.Minute, ShuttingDown: true},
			q.Snapshot())
		q.Done(a)
		synctest.Wait()
	})
}

func TestPriorityQueueGetWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		defer q.ShutDown()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, _, err := q.GetWithContext(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		q.Add("a")
		assert.Equal(t, workqueue.Snapshot{Queued: 1}, q.Snapshot(), "the getter that left took nothing")
		item, _, err := q.GetWithContext(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "a", item)
		q.Done(item)
	})
}

// TestPriorityQueueWorkers: many adders with random priorities and many workers; no item is
// handed to two workers at once, every item added is processed, and nothing is left over.
func TestPriorityQueueWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newPQ()
		var mu sync.Mutex
		busy := map[string]bool{}
		processed := map[string]int{}
		var workers sync.WaitGroup
		for range 16 {
			workers.Go(func() {
				for {
					item, shutdown := q.Get()
					if shutdown {
						return
					}
					mu.Lock()
					assert.False(t, busy[item], "%s handed out twice at once", item)
					busy[item] = true
					processed[item]++
					mu.Unlock()
					time.Sleep(time.Millisecond)
					mu.Lock()
					busy[item] = false
					mu.Unlock()
					q.Done(item)
				}
			})
		}
		var adders sync.WaitGroup
		for a := range 8 {
			adders.Go(func() {
				for i := range 200 {
					p := (a + i) % 5
					q.AddWithOpts(workqueue.AddOpts{Priority: &p, After: time.Duration(i%3) * time.Millisecond}, fmt.Sprint(i%50))
				}
			})
		}
		adders.Wait()
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, workqueue.Snapshot{}, q.Snapshot(), "everything processed")
		assert.Len(t, processed, 50)
		q.ShutDown()
		workers.Wait()
	})
}

func TestPriorityQueueMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp := &priorityProvider{depthBy: map[int]int{}}
		q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Name: "pq", MetricsProvider: mp})
		defer q.ShutDown()
		q.AddWithOpts(workqueue.AddOpts{Priority: priority(1)}, "a")
		q.Add("b")
		q.AddWithOpts(workqueue.AddOpts{Priority: priority(2)}, "b") // raised: depth moves
		q.AddAfter("c", time.Second)
		assert.Equal(t, map[int]int{0: 0, 1: 1, 2: 1}, mp.depths(), "b moved from 0 to 2")
		assert.Equal(t, 2, mp.adds.count(), "c is not ready yet")
		assert.Equal(t, 1, mp.retries.count(), "delayed adds count as retries")
		item, _, _ := q.GetWithPriority()
		assert.Equal(t, "b", item)
		assert.Equal(t, map[int]int{0: 0, 1: 1, 2: 0}, mp.depths())
		q.Done(item)
		assert.Len(t, mp.work.observed(), 1)
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, map[int]int{0: 1, 1: 1, 2: 0}, mp.depths())
		assert.Equal(t, 3, mp.adds.count())
	})
}

// TestPriorityQueueOnAnInjectedClockTimesItsMetricsOnTheRealClock: controller-runtime's priority
// queue reads the real clock for its metrics, whatever times its delays. On a clock of the
// test's own, a priority queue with metrics asks that clock for the delays of its items and the
// ticks of its unfinished-work gauges, which move every 500 ms of that clock while an item is
// in processing, reading the real clock. (A FIFO queue's metrics follow the clock in its
// config, as client-go's do.)
func TestPriorityQueueOnAnInjectedClockTimesItsMetricsOnTheRealClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		mp := &provider{}
		q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{
			Name: "pq", MetricsProvider: mp, Clock: clock})
		defer q.ShutDown()
		q.AddAfter("later", time.Second)
		q.Add("now")
		item, _ := q.Get()
		time.Sleep(time.Second) // real time, in the bubble; the queue's clock stands still
		synctest.Wait()
		assert.Equal(t, 0, mp.unfinished.setCalls(), "no tick before the queue's clock moves")
		clock.Step(500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []time.Duration{time.Second, 500 * time.Millisecond, 500 * time.Millisecond}, clock.Asked(),
			"the clock is asked for the delay and the ticks, the next one too, as the item is still in processing")
		assert.Equal(t, 1, mp.unfinished.setCalls(), "a tick after 500 ms of the queue's clock")
		assert.Equal(t, 1.0, mp.unfinished.value(), "one item, in processing for a second of real time")
		q.Done(item)
		clock.Step(500 * time.Millisecond)
		synctest.Wait()
		item, _ = q.Get()
		assert.Equal(t, "later", item, "the delay runs on the clock of the config")
		q.Done(item)
	})
}

type priorityProvider struct {
	provider
	mu      sync.Mutex
	depthBy map[int]int
}

func (p *priorityProvider) NewDepthMetricWithPriority(string) workqueue.DepthMetricWithPriority {
	return depthByPriority{p}
}

func (p *priorityProvider) depths() map[int]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[int]int{}
	for k, v := range p.depthBy {
		out[k] = v
	}
	return out
}

type depthByPriority struct{ p *priorityProvider }

func (d depthByPriority) Inc(priority int) { d.p.mu.Lock(); d.p.depthBy[priority]++; d.p.mu.Unlock() }
func (d depthByPriority) Dec(priority int) { d.p.mu.Lock(); d.p.depthBy[priority]--; d.p.mu.Unlock() }

func ExampleTypedPriorityQueue() {
	q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{})
	defer q.ShutDown()
	low, high := -1, 10
	q.AddWithOpts(workqueue.AddOpts{Priority: &low}, "default/resync-1", "default/resync-2")
	q.Add("default/web")
	q.AddWithOpts(workqueue.AddOpts{Priority: &high}, "default/urgent")
	for q.Len() > 0 {
		key, p, _ := q.GetWithPriority()
		fmt.Println(key, p)
		q.Done(key)
	}
	// Output:
	// default/urgent 10
	// default/web 0
	// default/resync-1 -1
	// default/resync-2 -1
}
