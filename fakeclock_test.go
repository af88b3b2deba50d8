package workqueue_test

import (
	"sync"
	"time"
)

// fakeClock is a Clock that moves only when stepped, like k8s.io/utils/clock/testing's
// FakeClock, with a record of the waits asked of it.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	asked   []time.Duration
}

type waiter struct {
	at time.Time
	c  chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, d)
	w := waiter{at: c.now.Add(d), c: make(chan time.Time, 1)}
	if !w.at.After(c.now) {
		w.c <- c.now
		return w.c
	}
	c.waiters = append(c.waiters, w)
	return w.c
}

// Step moves the clock forward by d and fires the waits that fall due.
func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	waiting := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			waiting = append(waiting, w)
		} else {
			w.c <- c.now
		}
	}
	c.waiters = waiting
}

// Afters returns how many waits the clock was asked for.
func (c *fakeClock) Afters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asked)
}

// Asked returns the waits the clock was asked for, in order.
func (c *fakeClock) Asked() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.asked...)
}
