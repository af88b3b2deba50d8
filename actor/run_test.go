package actor

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue/queue"
)

// TestAFloodCannotHoldBackDueItems: an item that falls due is applied after the commands sent
// before, and before the commands sent after, however many keep coming.
func TestAFloodCannotHoldBackDueItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(Config[int]{}) // the owner is not running: the test turns it by hand
		q.ready = nil                // keep every item in storage, in order
		q.fifo.AddAfter(-1, time.Now())
		const flood = 1000
		for i := range flood {
			q.mailbox.put(command[int]{op: opAdd, item: i}, true)
		}
		var a alarm
		q.turn(&a) // applies the flood, then finds -1 due
		for i := range flood {
			q.mailbox.put(command[int]{op: opAdd, item: flood + i}, true)
		}
		q.turn(&a)
		var order []int
		for item, _, ok := q.fifo.Reserve(time.Time{}); ok; item, _, ok = q.fifo.Reserve(time.Time{}) {
			order = append(order, item)
		}
		require.Len(t, order, 2*flood+1)
		assert.Equal(t, -1, order[flood], "the due item comes between the two floods")
	})
}

// TestADueItemMeetsTheTakesBeforeIt: an item taken by a getter, and added again by a delay that
// falls due while it is processed, is processed again after Done, even though no command
// reached the owner between the take and the delay.
func TestADueItemMeetsTheTakesBeforeIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config[string]{})
		defer q.ShutDown()
		q.AddAfter("x", time.Millisecond, nil)
		q.Add("x")
		item, _ := q.Get()
		time.Sleep(time.Millisecond) // the delay ends while x is in processing
		synctest.Wait()
		q.Done(item)
		assert.Equal(t, 1, q.Len(), "x is queued again")
	})
}

// TestHandoverAppliesEveryCommandOnce: Done calls racing the owner's exit are applied exactly
// once, whether the owner or a caller applies them: every item due again comes back once.
func TestHandoverAppliesEveryCommandOnce(t *testing.T) {
	for round := range 200 {
		q := New(Config[int]{})
		const n = 64
		for i := range n {
			q.Add(i)
		}
		for range n {
			item, _ := q.Get()
			q.Add(item) // due again after Done
		}
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { q.Done(i) })
		}
		wg.Go(q.ShutDown)
		wg.Wait()
		seen := map[int]int{}
		for {
			item, shutdown := q.Get()
			if shutdown {
				break
			}
			seen[item]++
			q.Done(item)
		}
		require.Len(t, seen, n, "round %d", round)
		for i := range n {
			require.Equal(t, 1, seen[i], "round %d: item %d", round, i)
		}
	}
}

// reordering is a custom storage: last in, first out. It must never be read ahead.
type reordering struct {
	mu    sync.Mutex
	items []string
}

func (s *reordering) Touch(string) {}
func (s *reordering) Push(item string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, item)
}
func (s *reordering) Len() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.items) }
func (s *reordering) Pop() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	item := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return item
}

func TestCustomStorageIsNotReadAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config[string]{Storage: &reordering{}})
		defer q.ShutDown()
		q.Add("a")
		q.Add("b")
		synctest.Wait()
		assert.Empty(t, q.ready, "nothing moves ahead before a getter asks")
		q.Add("c")
		got := []string{}
		for range 3 {
			item, _ := q.Get()
			got = append(got, item)
			q.Done(item)
		}
		assert.Equal(t, []string{"c", "b", "a"}, got, "the storage's order, up to the last add")
	})
}

func TestWaitingGettersEachGetOneItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config[string]{Storage: &reordering{}})
		got := make(chan string, 10)
		var getters sync.WaitGroup
		for range 10 {
			getters.Go(func() {
				item, shutdown := q.Get()
				if !shutdown {
					got <- item
				}
			})
		}
		synctest.Wait()
		for i := range 7 {
			q.Add(fmt.Sprint(i))
		}
		synctest.Wait()
		assert.Len(t, got, 7, "seven items for seven of the ten getters")
		q.ShutDown()
		getters.Wait()
		assert.Len(t, got, 7)
	})
}

// failingStorage panics on Push once told to.
type failingStorage struct {
	queue.FIFO[string]
	failing atomic.Bool
}

func (s *failingStorage) Push(item string) {
	if s.failing.Load() {
		panic("push failed")
	}
	s.FIFO.Push(item)
}

// TestAPanicSparesTheCommandsAfterIt: when one command of a batch panics, the owner keeps the
// panic for a caller and goes on with the commands after it in the same batch.
func TestAPanicSparesTheCommandsAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(Config[string]{Storage: &pickyStorage{}}) // the owner is not running: the test turns it by hand
		for _, item := range []string{"a", "bad", "b", "c"} {
			q.mailbox.put(command[string]{op: opAdd, item: item}, true)
		}
		var a alarm
		q.turn(&a)
		assert.Equal(t, 3, q.fifo.Len(), "a, b and c are queued")
		assert.Equal(t, "push failed: bad", q.stash, "the panic is kept for the next caller")
	})
}

// pickyStorage is a FIFO that refuses the item "bad".
type pickyStorage struct{ queue.FIFO[string] }

func (s *pickyStorage) Push(item string) {
	if item == "bad" {
		panic("push failed: bad")
	}
	s.FIFO.Push(item)
}

func TestAPanicWithNobodyWaitingReachesTheNextCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		storage := &failingStorage{}
		q := New(Config[string]{Storage: storage})
		defer q.ShutDown()
		q.AddAfter("later", time.Second, nil)
		synctest.Wait()
		storage.failing.Store(true) // the delayed add will fail in the owner, with no caller
		time.Sleep(time.Second)
		synctest.Wait()
		storage.failing.Store(false)
		assert.PanicsWithValue(t, "push failed", func() { q.Len() })
		assert.Equal(t, 0, q.Len(), "raised once")
	})
}

type stoppedClock struct{}

func (*stoppedClock) Now() time.Time                       { return time.Time{} }
func (*stoppedClock) Since(time.Time) time.Duration        { return 0 }
func (*stoppedClock) After(time.Duration) <-chan time.Time { return nil }

// TestTakeIsOrderedWithCommands: an item handed ahead to ready, then added again before a
// getter takes it, is processed once. The getter's take reaches the owner after the second
// Add, as it happened after it.
func TestTakeIsOrderedWithCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(Config[string]{}) // the owner is not running: the test turns it by hand
		var a alarm
		q.Add("web")
		q.turn(&a) // web is reserved and waits in ready
		q.Add("web")
		got := make(chan string)
		go func() {
			item, _ := q.Get()
			got <- item
		}()
		synctest.Wait() // the getter took web; its news is in the mailbox, behind the Add
		q.turn(&a)
		assert.Equal(t, "web", <-got)
		q.Done("web")
		q.turn(&a)
		assert.Equal(t, 0, q.fifo.Len(), "the second Add merged with the first")
		assert.Equal(t, 0, q.fifo.Processing())
	})
}

// TestGettersGetEveryItemWithoutDone: more items than ready holds wait, and getters take them
// all without calling Done, so that no command but theirs reaches the owner. A getter that
// finds ready empty must have the owner refill it, or it waits while items wait too.
func TestGettersGetEveryItemWithoutDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config[int]{})
		defer q.ShutDown()
		const items = readySize + 8
		for i := range items {
			q.Add(i)
		}
		synctest.Wait() // the owner sleeps, ready full
		got := make(chan int, items)
		go func() {
			for range items {
				item, _ := q.Get()
				got <- item
			}
		}()
		synctest.Wait()
		require.Len(t, got, items, "every Get returned")
		for i := range items {
			assert.Equal(t, i, <-got)
		}
	})
}
