package workqueue_test

import (
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue"
)

// drainOrder gets and finishes every waiting item and returns them in order.
func drainOrder[T comparable](q workqueue.TypedInterface[T]) []T {
	var items []T
	for q.Len() > 0 {
		item, _ := q.Get()
		items = append(items, item)
		q.Done(item)
	}
	return items
}

func TestAddAfterWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueue[string]()
		defer q.ShutDown()
		q.AddAfter("foo", 50*time.Millisecond)
		assert.Equal(t, 0, q.Len())
		time.Sleep(49 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 0, q.Len(), "not due yet")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 1, q.Len(), "due")
		assert.Equal(t, []string{"foo"}, drainOrder(q))
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, 0, q.Len(), "added once")
	})
}

func TestAddAfterKeepsTheEarliestInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueue[string]()
		defer q.ShutDown()
		q.AddAfter("foo", 50*time.Millisecond)
		q.AddAfter("foo", 70*time.Millisecond) // later: ignored
		time.Sleep(60 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"foo"}, drainOrder(q))
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 0, q.Len(), "the later add was merged into the earlier one")

		q.AddAfter("foo", 50*time.Millisecond)
		q.AddAfter("foo", 30*time.Millisecond) // earlier: wins
		time.Sleep(40 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"foo"}, drainOrder(q))
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 0, q.Len())
	})
}

func TestAddAfterFiresInOrderOfInstants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueue[string]()
		defer q.ShutDown()
		q.AddAfter("foo", time.Second)
		q.AddAfter("bar", 50*time.Millisecond)
		time.Sleep(60 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{"bar"}, drainOrder(q))
		q.AddAfter("baz", 2*time.Second)
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"foo"}, drainOrder(q))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"baz"}, drainOrder(q))

		q.AddAfter("1s", time.Second)
		q.AddAfter("500ms", 500*time.Millisecond)
		q.AddAfter("250ms", 250*time.Millisecond)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"250ms", "500ms", "1s"}, drainOrder(q))
	})
}

func TestAddAfterZeroOrNegativeAddsAtOnce(t *testing.T) {
	q := workqueue.NewTypedDelayingQueue[string]()
	defer q.ShutDown()
	q.AddAfter("zero", 0)
	q.AddAfter("negative", -time.Hour)
	q.AddAfter("most negative", math.MinInt64)
	assert.Equal(t, []string{"zero", "negative", "most negative"}, drainOrder(q))
}

func TestAddAfterHugeDelayNeverWrapsIntoThePast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueue[string]()
		defer q.ShutDown()
		q.AddAfter("max", math.MaxInt64)
		q.AddAfter("near max", math.MaxInt64-time.Second)
		time.Sleep(100 * 365 * 24 * time.Hour)
		synctest.Wait()
		assert.Equal(t, 0, q.Len())
	})
}

func TestAddAfterAnItemAlreadyQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// As in client-go, the delay heap and the queue are separate: a delayed add of an item
		// that is queued now still adds it again when due, which matters once it was processed.
		q := workqueue.NewTypedDelayingQueue[string]()
		defer q.ShutDown()
		q.Add("a")
		q.AddAfter("a", time.Second)
		assert.Equal(t, []string{"a"}, drainOrder(q))
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"a"}, drainOrder(q))
	})
}

func TestAddAfterAfterShutDownIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueue[string]()
		q.AddAfter("before", time.Second)
		q.ShutDown()
		q.AddAfter("after", 0)
		q.AddAfter("after", time.Millisecond)
		time.Sleep(time.Hour)
		assert.Equal(t, 0, q.Len(), "delayed items are dropped at shutdown")
	})
}

func TestDelayingQueueOnAFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		q := workqueue.NewDelayingQueueWithCustomClock(clock, "")
		defer q.ShutDown()
		q.AddAfter("foo", 50*time.Millisecond)
		clock.Step(60 * time.Millisecond) // possibly before the queue has seen the AddAfter
		synctest.Wait()
		assert.Equal(t, 1, q.Len(), "the delay is measured from the call, on the fake clock")
		assert.Equal(t, []any{"foo"}, drainOrder[any](q))

		q.AddAfter("bar", time.Second)
		synctest.Wait()
		time.Sleep(time.Hour) // real time does not matter
		synctest.Wait()
		assert.Equal(t, 0, q.Len())
		clock.Step(time.Second)
		synctest.Wait()
		assert.Equal(t, 1, q.Len())
	})
}

// foreign is a queue from another package: it wraps one of ours behind an interface.
// recorder notes the items a queue of the user's own is given, in order.
type recorder struct {
	mu    sync.Mutex
	added []string
}

func (r *recorder) note(item string) {
	r.mu.Lock()
	r.added = append(r.added, item)
	r.mu.Unlock()
}

func (r *recorder) items() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.added
}

// foreign is a queue of another package: it has our methods only through an interface.
type foreign struct {
	workqueue.TypedInterface[string]
	recorder
}

func (f *foreign) Add(item string) { f.note(item); f.TypedInterface.Add(item) }

// wrapped is a queue of the user's own that embeds one of ours, and overrides its Add.
type wrapped struct {
	*workqueue.Typed[string]
	recorder
}

func (w *wrapped) Add(item string) { w.note(item); w.Typed.Add(item) }

// TestDelayingQueueAroundAQueueOfTheUsersOwn: a delaying queue adds through the queue it was
// given, as client-go's does, even one that embeds a queue of this package.
func TestDelayingQueueAroundAQueueOfTheUsersOwn(t *testing.T) {
	type recorded interface {
		workqueue.TypedInterface[string]
		items() []string
	}
	for name, newInner := range map[string]func() recorded{
		"of another package": func() recorded { return &foreign{TypedInterface: workqueue.NewTyped[string]()} },
		"around one of ours": func() recorded { return &wrapped{Typed: workqueue.NewTyped[string]()} },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inner := newInner()
				q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Queue: inner})
				q.AddAfter("later", time.Second)
				q.AddAfter("now", 0)
				time.Sleep(time.Second)
				synctest.Wait()
				assert.Equal(t, []string{"now", "later"}, drainOrder[string](q))
				assert.Equal(t, []string{"now", "later"}, inner.items(), "items go through the queue's own Add")
				q.ShutDown()
				assert.True(t, inner.ShuttingDown())
			})
		})
	}
}

func TestDelayingQueueSharesTheGoroutineOfOneOfOurs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := workqueue.NewTyped[string]()
		synctest.Wait()
		before := bubbleGoroutines()
		q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Queue: inner})
		synctest.Wait()
		assert.Equal(t, before, bubbleGoroutines(), "no second goroutine")
		q.AddAfter("a", time.Second)
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, 1, inner.Len())
		q.ShutDown()
		assert.True(t, inner.ShuttingDown())
	})
}
