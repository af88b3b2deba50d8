package actor

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStopWhenIsAskedWhenTheOwnerWakes: on the real clock, StopWhen is asked at every wake of
// the owner, and the owner never wakes only to ask it; once it reports true, the queue shuts
// itself down at the next wake and drops its delayed items.
func TestStopWhenIsAskedWhenTheOwnerWakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var asked, forwarded atomic.Int32
		var stop atomic.Bool
		q := New(Config[int]{
			Forward:  func(int) { forwarded.Add(1) },
			StopWhen: func() bool { asked.Add(1); return stop.Load() },
		})
		q.AddAfter(1, time.Hour, nil)
		synctest.Wait()
		asked.Store(0)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		assert.Zero(t, asked.Load(), "idle: never woken to ask")
		q.AddAfter(2, time.Hour, nil)
		synctest.Wait()
		assert.Equal(t, int32(1), asked.Load(), "asked when a command woke it")
		stop.Store(true)
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.True(t, q.ShuttingDown(), "shut itself down when the first item fell due")
		<-q.exited
		assert.Zero(t, forwarded.Load(), "the delayed items were dropped")
	})
}

// TestStopWhenIsAskedAtEveryHeartbeatOnAnInjectedClock: on a clock passed in, the queue keeps
// client-go's heartbeat, and asks StopWhen at each.
func TestStopWhenIsAskedAtEveryHeartbeatOnAnInjectedClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := &steppedClock{now: time.Unix(0, 0)}
		var asked atomic.Int32
		var stop atomic.Bool
		q := New(Config[int]{
			Clock:    clock,
			Forward:  func(int) {},
			StopWhen: func() bool { asked.Add(1); return stop.Load() },
		})
		for range 3 {
			clock.step(10 * time.Second)
			synctest.Wait()
		}
		assert.Equal(t, int32(3), asked.Load(), "idle for 30 s: asked every 10 s")
		stop.Store(true)
		clock.step(10 * time.Second)
		synctest.Wait()
		assert.True(t, q.ShuttingDown(), "shut itself down at the next heartbeat")
		<-q.exited
	})
}

func TestAPanicOfStopWhenReachesTheNextCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var failing atomic.Bool
		q := New(Config[int]{
			Forward: func(int) {},
			StopWhen: func() bool {
				if failing.Load() {
					panic("stop failed")
				}
				return false
			},
		})
		defer q.ShutDown()
		failing.Store(true)
		q.AddAfter(1, time.Hour, nil) // wakes the owner, which asks; the caller does not wait
		synctest.Wait()
		failing.Store(false)
		assert.PanicsWithValue(t, "stop failed", func() { q.Len() })
		assert.Equal(t, 0, q.Len(), "raised once")
		assert.False(t, q.ShuttingDown())
	})
}

// TestAPanicOfStopWhenAtAHeartbeatReachesTheNextLen: a panic of StopWhen at a wake-up that no
// command brought is raised by a Len that starts after it, though the owner has not gone back
// to sleep and no command was put since it last did: the stash voids the length left for Len.
// The clock holds the owner inside that turn, right after the panic.
func TestAPanicOfStopWhenAtAHeartbeatReachesTheNextLen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := &gatedClock{steppedClock: steppedClock{now: time.Unix(0, 0)}}
		var failing atomic.Bool
		q := New(Config[int]{
			Clock:   clock,
			Forward: func(int) {},
			StopWhen: func() bool {
				if failing.Load() {
					failing.Store(false)
					clock.shut() // the owner's next look at the clock, in this turn, waits
					panic("stop failed")
				}
				return false
			},
		})
		defer q.ShutDown()
		assert.Equal(t, 0, q.Len(), "answered while the owner sleeps")
		failing.Store(true)
		clock.step(10 * time.Second) // the heartbeat
		synctest.Wait()              // the owner waits on the clock, the panic stashed
		raised := make(chan any, 1)
		go func() {
			defer func() { raised <- recover() }()
			q.Len()
		}()
		synctest.Wait()
		clock.open()
		assert.Equal(t, "stop failed", <-raised)
	})
}

// gatedClock is a steppedClock whose Now waits while it is shut.
type gatedClock struct {
	steppedClock
	gate atomic.Pointer[chan struct{}]
}

func (c *gatedClock) Now() time.Time {
	if g := c.gate.Load(); g != nil {
		<-*g
	}
	return c.steppedClock.Now()
}

func (c *gatedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *gatedClock) shut() {
	g := make(chan struct{})
	c.gate.Store(&g)
}

func (c *gatedClock) open() {
	if g := c.gate.Swap(nil); g != nil {
		close(*g)
	}
}

// steppedClock is a clock that moves only when stepped, firing the waits that fall due.
type steppedClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []steppedWait
}

type steppedWait struct {
	at time.Time
	c  chan time.Time
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *steppedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *steppedClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := steppedWait{at: c.now.Add(d), c: make(chan time.Time, 1)}
	c.waits = append(c.waits, w)
	return w.c
}

func (c *steppedClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	waiting := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(c.now) {
			waiting = append(waiting, w)
		} else {
			w.c <- c.now
		}
	}
	c.waits = waiting
}
