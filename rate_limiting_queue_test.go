package workqueue_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/actorqueue/workqueue"
)

// dueAfter reports how long after now the queue makes item due, by watching it under synctest:
// the item must be the only one in the queue.
func dueAfter(t *testing.T, q workqueue.TypedInterface[string], item string) time.Duration {
	t.Helper()
	start := time.Now()
	for range 100000 {
		synctest.Wait()
		if q.Len() > 0 {
			got, _ := q.Get()
			require.Equal(t, item, got)
			q.Done(got)
			return time.Since(start)
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%s never became due", item)
	return 0
}

func TestRateLimitingQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second))
		defer q.ShutDown()
		q.AddRateLimited("one")
		assert.Equal(t, time.Millisecond, dueAfter(t, q, "one"))
		q.AddRateLimited("one")
		assert.Equal(t, 2*time.Millisecond, dueAfter(t, q, "one"))
		assert.Equal(t, 2, q.NumRequeues("one"))
		q.AddRateLimited("two")
		assert.Equal(t, time.Millisecond, dueAfter(t, q, "two"))
		q.AddRateLimited("two")
		assert.Equal(t, 2*time.Millisecond, dueAfter(t, q, "two"))
		q.Forget("one")
		assert.Equal(t, 0, q.NumRequeues("one"))
		assert.Equal(t, 2, q.NumRequeues("two"))
		q.AddRateLimited("one")
		assert.Equal(t, time.Millisecond, dueAfter(t, q, "one"))
	})
}

func TestAddRateLimitedAfterShutDownStillCountsTheFailure(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Hour, time.Hour))
	q.AddRateLimited("a") // not due before the shutdown drops it
	q.ShutDown()
	q.AddRateLimited("a")
	assert.Equal(t, 2, q.NumRequeues("a"), "as in client-go, the limiter is asked after shutdown")
	assert.Equal(t, 0, q.Len())
	q.Forget("a")
	assert.Equal(t, 0, q.NumRequeues("a"))
}

func TestBucketLimiterReadsTheQueueClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		bucket := &workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(1, 1)}
		q := workqueue.NewTypedRateLimitingQueueWithConfig(bucket, workqueue.TypedRateLimitingQueueConfig[string]{Clock: clock})
		defer q.ShutDown()
		q.AddRateLimited("a") // the first token is free
		q.AddRateLimited("b") // one token per second on the fake clock
		synctest.Wait()
		assert.Equal(t, 1, q.Len())
		time.Sleep(time.Hour) // real time does not refill the bucket
		synctest.Wait()
		assert.Equal(t, 1, q.Len())
		clock.Step(time.Second)
		synctest.Wait()
		assert.Equal(t, 2, q.Len())
	})
}

func TestDefaultControllerRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		defer q.ShutDown()
		var waits []time.Duration
		for range 4 {
			q.AddRateLimited("a")
			waits = append(waits, dueAfter(t, q, "a"))
		}
		assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}, waits)
		// Each new item waits 5ms, but past the burst of 100 tokens (4 spent by a), the overall
		// bucket sets the pace: one more every 100ms.
		for i := range 150 {
			q.AddRateLimited(fmt.Sprint("burst", i))
		}
		time.Sleep(5 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 96, q.Len())
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 97, q.Len())
	})
}

func TestRateLimitingQueueAroundOurDelayingQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		dq := workqueue.NewDelayingQueueWithCustomClock(clock, "")
		q := workqueue.NewRateLimitingQueueWithDelayingInterface(dq, workqueue.NewItemExponentialFailureRateLimiter(time.Second, time.Minute))
		defer q.ShutDown()
		q.AddRateLimited("a")
		synctest.Wait()
		assert.Equal(t, 0, dq.Len())
		clock.Step(time.Second)
		synctest.Wait()
		assert.Equal(t, 1, dq.Len(), "the limiter's wait runs on the delaying queue's clock")
	})
}

// foreignDelaying is a delaying queue from another package.
type foreignDelaying struct {
	workqueue.TypedDelayingInterface[string]
	mu     sync.Mutex
	delays []time.Duration
}

func (f *foreignDelaying) AddAfter(item string, d time.Duration) {
	f.mu.Lock()
	f.delays = append(f.delays, d)
	f.mu.Unlock()
	f.TypedDelayingInterface.AddAfter(item, d)
}

func TestRateLimitingQueueAroundAForeignDelayingQueue(t *testing.T) {
	dq := &foreignDelaying{TypedDelayingInterface: workqueue.NewTypedDelayingQueue[string]()}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
		workqueue.TypedRateLimitingQueueConfig[string]{DelayingQueue: dq})
	defer q.ShutDown()
	q.AddRateLimited("a")
	q.AddRateLimited("a")
	assert.Equal(t, 2, q.NumRequeues("a"))
	dq.mu.Lock()
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, dq.delays, "retries go through the foreign AddAfter")
	dq.mu.Unlock()
}

func ExampleTypedRateLimitingInterface() {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second))
	defer q.ShutDown()
	attempts := 0
	reconcile := func(key string) error {
		attempts++
		if attempts < 3 {
			return fmt.Errorf("attempt %d failed", attempts)
		}
		return nil
	}
	q.Add("default/web")
	for {
		key, _ := q.Get()
		err := reconcile(key)
		if err == nil {
			q.Forget(key) // success: the next failure starts from the base delay again
			q.Done(key)
			break
		}
		fmt.Printf("%s: %v; retry %d\n", key, err, q.NumRequeues(key)+1)
		q.AddRateLimited(key) // retried after 1ms, then 2ms, ...
		q.Done(key)
	}
	fmt.Println("reconciled after", attempts, "attempts; failures tracked:", q.NumRequeues("default/web"))
	// Output:
	// default/web: attempt 1 failed; retry 1
	// default/web: attempt 2 failed; retry 2
	// reconciled after 3 attempts; failures tracked: 0
}

func ExampleTypedDelayingInterface() {
	q := workqueue.NewTypedDelayingQueue[string]()
	defer q.ShutDown()
	q.AddAfter("later", 20*time.Millisecond)
	q.AddAfter("sooner", 10*time.Millisecond)
	q.AddAfter("now", 0)
	for range 3 {
		key, _ := q.Get()
		fmt.Println(key)
		q.Done(key)
	}
	// Output:
	// now
	// sooner
	// later
}

// TestALimiterSharedByTwoQueuesAndAWorker: as with client-go, one limiter may serve two queues
// and a worker that asks it directly, all at once, and again once the queues have shut down.
// The first queue adopts it; the second, and the worker, have their calls run by the first
// queue's owner goroutine, or in their own once it has exited. No failure is lost, and -race
// finds no race.
func TestALimiterSharedByTwoQueuesAndAWorker(t *testing.T) {
	const rounds = 100
	rl := workqueue.NewTypedItemExponentialFailureRateLimiter[int](0, 0)
	first := workqueue.NewTypedRateLimitingQueue[int](rl)
	second := workqueue.NewTypedRateLimitingQueue[int](rl)
	var wg sync.WaitGroup
	for _, q := range []workqueue.TypedRateLimitingInterface[int]{first, second} {
		wg.Go(func() {
			for range rounds {
				q.AddRateLimited(1)
			}
		})
	}
	wg.Go(func() {
		for range rounds {
			rl.When(1)
		}
	})
	wg.Wait()
	assert.Equal(t, 3*rounds, first.NumRequeues(1))
	assert.Equal(t, 3*rounds, second.NumRequeues(1))
	assert.Equal(t, 3*rounds, rl.NumRequeues(1))

	first.ShutDown()
	second.ShutDown()
	rl.When(1)
	assert.Equal(t, 3*rounds+1, second.NumRequeues(1), "after shutdown")
	second.Forget(1)
	assert.Zero(t, first.NumRequeues(1), "forgotten through the other queue")
}

// sharedLimiter is a limiter shared by tests, as a package-level default often is.
var sharedLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, 0)

// TestALimiterOutlivesItsQueue: a limiter adopted by a queue inside a synctest bubble is given
// back when the queue shuts down, so the next test's queue, outside that bubble, adopts it, and
// calls made to it outside the bubble touch nothing of the bubble's. (While the queue lived,
// calls from outside its bubble would be handed to its goroutine, which synctest forbids, as
// for any call on a queue of the bubble.)
func TestALimiterOutlivesItsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedRateLimitingQueue(sharedLimiter)
		q.AddRateLimited("a")
		q.ShutDown()
	})
	assert.Equal(t, 1, sharedLimiter.NumRequeues("a"))
	q := workqueue.NewTypedRateLimitingQueue(sharedLimiter)
	defer q.ShutDown()
	q.AddRateLimited("a")
	sharedLimiter.When("a")
	assert.Equal(t, 3, q.NumRequeues("a"))
	q.Forget("a")
}

// TestABucketSharedByTwoQueuesSpendsItsTokensInOrder: as with client-go, where AddRateLimited
// asks the limiter before it returns, a retry asked of a shared token bucket through the first
// queue spends the bucket's one token before a retry asked through the second queue later.
// The first queue adopts the bucket, and the second's calls reach the bucket through the
// first's owner, after the first queue's own.
func TestABucketSharedByTwoQueuesSpendsItsTokensInOrder(t *testing.T) {
	for range 20 {
		bucket := &workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(0.001), 1)}
		first := workqueue.NewTypedRateLimitingQueue[string](bucket)
		second := workqueue.NewTypedRateLimitingQueue[string](bucket)
		first.AddRateLimited("a")
		second.AddRateLimited("b")
		assert.Equal(t, 1, first.Len(), "a spent the token")
		assert.Equal(t, 0, second.Len(), "b waits for the next one")
		first.ShutDown()
		second.ShutDown()
	}
}
