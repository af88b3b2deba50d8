package actor

import (
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// The tests here count the owner's turns, through StopWhen, which the owner asks once at the
// end of every turn, to show that nothing leaves a wake token behind: a token the owner did
// not need wakes it from its next sleep for an empty turn. They read the count before calling
// Len, whose command takes a turn of its own.

// newCounted starts a queue on a hookedClock whose turns n counts, and shuts it down when the
// test ends.
func newCounted[T comparable](t *testing.T, n *atomic.Int32) (*Queue[T], *hookedClock) {
	clock := &hookedClock{steppedClock: steppedClock{now: time.Unix(0, 0)}}
	q := New(Config[T]{Clock: clock, StopWhen: countTurns(n)})
	t.Cleanup(q.ShutDown)
	return q, clock
}

// countTurns returns a StopWhen that counts the turns in n and never stops the queue.
func countTurns(n *atomic.Int32) func() bool {
	return func() bool { n.Add(1); return false }
}

// TestADueItemLeavesNoWakeBehind: an item that falls due costs the owner two turns, one that
// the alarm wakes, which posts the item's release, and one that applies it. Its own post must
// not wake it a third time.
func TestADueItemLeavesNoWakeBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var turns, forwarded atomic.Int32
		q := New(Config[int]{Forward: func(int) { forwarded.Add(1) }, StopWhen: countTurns(&turns)})
		defer q.ShutDown()
		q.AddAfter(1, time.Second, nil)
		synctest.Wait()
		turns.Store(0)
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, int32(1), forwarded.Load(), "the item fell due")
		assert.Equal(t, int32(2), turns.Load(), "turns taken for the due item")
	})
}

// TestAPutDuringAnAlarmTurnLeavesNoWakeBehind: a command put while the owner runs a turn that
// its alarm brought is applied in the next turn, with the due item, and the owner then sleeps:
// two turns in all.
func TestAPutDuringAnAlarmTurnLeavesNoWakeBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var turns atomic.Int32
		q, clock := newCounted[string](t, &turns)
		q.AddAfter("x", time.Second, nil)
		synctest.Wait()
		turns.Store(0)
		clock.onNow(func() { q.Add("y") }) // the alarm turn reads the clock to see what is due
		clock.step(time.Second)
		synctest.Wait()
		assert.Equal(t, int32(2), turns.Load(), "turns: the alarm's, then y's and x's")
		assert.Equal(t, 2, q.Len(), "x fell due, y was added")
	})
}

// TestAPutRacingTheAlarmLeavesNoWakeBehind: a command put after the alarm fired, before the
// owner has run, finds the owner still marked asleep and sends a token. When the owner's select
// takes the alarm rather than that token (it picks at random), the token must not wake it again
// once the command is applied. Twenty queues make the race go both ways. With one processor,
// the owner the alarm readies runs only once the test blocks, so always after the put (with
// two, it may run in between, and take a turn of its own for the alarm).
func TestAPutRacingTheAlarmLeavesNoWakeBehind(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			var turns atomic.Int32
			clock := &steppedClock{now: time.Unix(0, 0)}
			q := New(Config[string]{Clock: clock, StopWhen: countTurns(&turns)})
			defer q.ShutDown()
			q.AddAfter("x", time.Second, nil)
			synctest.Wait()
			turns.Store(0)
			clock.step(time.Second)
			q.Add("y")
			synctest.Wait()
			assert.Equal(t, int32(2), turns.Load(), "turns: the alarm's, then x's and y's")
			assert.Equal(t, 2, q.Len(), "x fell due, y was added")
		})
	}
}

// TestAPutDuringANudgeTurnLeavesNoWakeBehind: a command put while the owner runs a turn that a
// getter's nudge brought (the getter emptied ready while items waited in storage) is applied in
// the next turn, and the owner then sleeps: two turns in all.
func TestAPutDuringANudgeTurnLeavesNoWakeBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var turns atomic.Int32
		q, clock := newCounted[int](t, &turns)
		for i := range readySize + 8 {
			q.Add(i)
		}
		synctest.Wait()
		turns.Store(0)
		clock.onNow(func() { q.Add(-1) }) // the nudge turn reads the clock as it refills ready
		for range readySize {
			q.Get()
		}
		synctest.Wait()
		assert.Equal(t, int32(2), turns.Load(), "turns: the nudge's, then -1's")
		assert.Equal(t, 8+1, q.Len(), "the 8 items left, and -1")
	})
}

// TestATakeDuringARefillThatFitsDoesNotNudge: a getter that empties ready while the owner
// refills it with every item that waits, all of which fit, has nothing to nudge the owner for.
func TestATakeDuringARefillThatFitsDoesNotNudge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var turns atomic.Int32
		q, clock := newCounted[string](t, &turns)
		q.Add("x")
		synctest.Wait() // x is in ready
		turns.Store(0)
		var got string
		clock.onNow(func() { got, _ = q.Get() }) // the refill after y's add reads the clock
		q.Add("y")
		synctest.Wait()
		assert.Equal(t, "x", got)
		assert.Equal(t, int32(1), turns.Load(), "turns: y's")
		assert.Equal(t, 1, q.Len(), "y waits")
	})
}

// hookedClock is a steppedClock that runs a hook at the next call of Now, once: the owner's
// reads of the clock let a test act from inside a turn.
type hookedClock struct {
	steppedClock
	hook atomic.Pointer[func()]
}

func (c *hookedClock) onNow(hook func()) { c.hook.Store(&hook) }

func (c *hookedClock) Now() time.Time {
	if h := c.hook.Swap(nil); h != nil {
		(*h)()
	}
	return c.steppedClock.Now()
}

func (c *hookedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
