package bench

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// looping is a fake queue of goroutines that run until ShutDown; done closes once they have.
type looping struct{ stop, done chan struct{} }

func newLooping() *looping { return &looping{stop: make(chan struct{}), done: make(chan struct{})} }

func (q *looping) ShutDown() { close(q.stop); <-q.done }

// tickUntil calls each every period until stop is closed.
func tickUntil(stop <-chan struct{}, period time.Duration, each func()) {
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
			each()
		}
	}
}

// newTicking returns a fake queue: one goroutine that wakes every period.
func newTicking(period time.Duration) ShutDowner {
	q := newLooping()
	go func() {
		defer close(q.done)
		tickUntil(q.stop, period, func() {})
	}()
	return q
}

// rearming is a fake queue with no goroutine of its own: a time.AfterFunc that rearms itself
// every period, so each firing starts a new goroutine.
type rearming struct {
	mu    sync.Mutex
	timer *time.Timer
}

func newRearming(period time.Duration) ShutDowner {
	q := &rearming{}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.timer = time.AfterFunc(period, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.timer.Reset(period)
	})
	return q
}

func (q *rearming) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.timer.Stop()
}

// newCollecting returns a fake queue: one goroutine that wakes every period and collects
// garbage, so that it waits for the collector and is woken by one of its workers.
func newCollecting(period time.Duration) ShutDowner {
	q := newLooping()
	go func() {
		defer close(q.done)
		tickUntil(q.stop, period, runtime.GC)
	}()
	return q
}

// newRelaying returns a fake queue of two goroutines: one wakes every period and wakes the
// other.
func newRelaying(period time.Duration) ShutDowner {
	q := newLooping()
	relay := make(chan struct{})
	go func() {
		defer close(q.done)
		for range relay {
		}
	}()
	go func() {
		defer close(relay)
		tickUntil(q.stop, period, func() { relay <- struct{}{} })
	}()
	return q
}

func fake(newQueue func() ShutDowner) Impl {
	return Impl{Name: "fake", NewKind: func(Kind) ShutDowner { return newQueue() }}
}

func TestIdleWakeupsCountsTimers(t *testing.T) {
	cases := []struct {
		name   string
		impl   Impl
		kind   Kind
		count  int
		window time.Duration
		want   float64
	}{
		{"a ticker every 7s wakes 8 times a minute", fake(func() ShutDowner { return newTicking(7 * time.Second) }), RateLimiting, 1, time.Minute, 8},
		{"three of them wake 24 times", fake(func() ShutDowner { return newTicking(7 * time.Second) }), RateLimiting, 3, time.Minute, 24},
		{"a 2-minute window is scaled to one minute", fake(func() ShutDowner { return newTicking(7 * time.Second) }), RateLimiting, 1, 2 * time.Minute, 8.5},
		{"an AfterFunc rearmed every 20s fires 3 times", fake(func() ShutDowner { return newRearming(20 * time.Second) }), RateLimiting, 1, time.Minute, 3},
		{"a ticker that wakes a second goroutine counts once per tick", fake(func() ShutDowner { return newRelaying(7 * time.Second) }), RateLimiting, 1, time.Minute, 8},
		{"a ticker whose goroutine then waits for the collector counts once per tick", fake(func() ShutDowner { return newCollecting(7 * time.Second) }), RateLimiting, 1, time.Minute, 8},
		{"a goroutine that only waits never wakes", fake(func() ShutDowner { return newTicking(time.Hour) }), RateLimiting, 2, time.Minute, 0},
		{"client-go's delaying queue beats every 10s", ClientGo(), Delaying, 2, time.Minute, 12},
		{"client-go's plain queue has no goroutine", ClientGo(), Plain, 2, time.Minute, 0},
		{"controller-runtime logs its state every 10s", ControllerRuntime(), RateLimiting, 2, time.Minute, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := IdleWakeups(t, c.impl, c.kind, c.count, c.window); got != c.want {
				t.Errorf("IdleWakeups = %v per minute, want %v", got, c.want)
			}
		})
	}
}

func TestIdleWakeupsCountsMetricsUpdates(t *testing.T) {
	// client-go's named queue with metrics sets its unfinished-work gauges every 500 ms: 120
	// wake-ups a minute, plus the delaying queue's 6 heartbeats.
	if got := IdleWakeups(t, ClientGo(), Named, 1, time.Minute); got != 126 {
		t.Errorf("IdleWakeups = %v per minute, want 126", got)
	}
}

func TestIdleActorQueuesWakeNever(t *testing.T) {
	// On the real clock, whatever the kind: no heartbeat, and no metrics tick while nothing is
	// in processing.
	for _, k := range Kinds {
		if got := IdleWakeups(t, ActorQueue(), k, 2, time.Minute); got != 0 {
			t.Errorf("%v: IdleWakeups = %v per minute, want 0", k, got)
		}
	}
}
