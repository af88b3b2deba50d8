package limiter

import (
	"math"
	"time"

	"github.com/actorqueue/workqueue/clock"
)

// Timer is what a [BackoffManager] hands out to wait on.
type Timer interface {
	// C returns the channel that receives the instant the wait ends.
	C() <-chan time.Time
	// Stop abandons the wait. It reports whether the timer was stopped before it fired; a timer
	// built on a Clock's After cannot be stopped and reports false.
	Stop() bool
}

// BackoffManager hands out the next wait of a backoff scheme as a [Timer], as apimachinery's
// wait.BackoffManager does. It is not safe for concurrent use.
type BackoffManager interface {
	// Backoff starts the next wait.
	Backoff() Timer
}

// ExponentialManager is the [BackoffManager] of [NewExponentialBackoffManager].
type ExponentialManager struct {
	backoff   Backoff
	initial   time.Duration
	reset     time.Duration
	lastStart time.Time
	clock     clock.Clock
}

// NewExponentialBackoffManager returns a manager whose waits start at initBackoff and grow by
// backoffFactor up to maxBackoff, each jittered by jitter (see [Backoff]). When resetDuration
// passes without a Backoff call, the next wait starts again from initBackoff. It reads c, or
// the real clock when c is nil. Semantics are those of apimachinery's manager of the same name.
func NewExponentialBackoffManager(initBackoff, maxBackoff, resetDuration time.Duration, backoffFactor, jitter float64, c clock.Clock) *ExponentialManager {
	c = clock.OrReal(c)
	return &ExponentialManager{
		backoff:   Backoff{Duration: initBackoff, Factor: backoffFactor, Jitter: jitter, Steps: math.MaxInt32, Cap: maxBackoff},
		initial:   initBackoff,
		reset:     resetDuration,
		lastStart: c.Now(),
		clock:     c,
	}
}

// Backoff starts the next wait on the manager's clock.
func (b *ExponentialManager) Backoff() Timer {
	return afterTimer{b.clock.After(b.Next(b.clock.Now()))}
}

// Next returns the next wait when asked at the instant now, and advances the manager.
func (b *ExponentialManager) Next(now time.Time) time.Duration {
	if now.Sub(b.lastStart) > b.reset {
		b.backoff.Steps, b.backoff.Duration = math.MaxInt32, b.initial
	}
	b.lastStart = now
	return b.backoff.Step()
}

// afterTimer is a Timer on a channel from Clock.After.
type afterTimer struct{ c <-chan time.Time }

func (t afterTimer) C() <-chan time.Time { return t.c }
func (t afterTimer) Stop() bool          { return false }

// BackoffUntil calls f, then waits as manager says, and again, until stopCh is closed, as
// apimachinery's wait.BackoffUntil does. With sliding, each wait starts after f returns;
// without, it starts before f is called, so f's running time counts toward it. f is not called
// once stopCh is closed. A panic in f reaches the caller. BackoffUntil runs in the caller's
// goroutine and starts none.
func BackoffUntil(f func(), manager BackoffManager, sliding bool, stopCh <-chan struct{}) {
	for {
		select {
		case <-stopCh:
			return
		default:
		}
		var t Timer
		if !sliding {
			t = manager.Backoff()
		}
		f()
		if sliding {
			t = manager.Backoff()
		}
		select {
		case <-stopCh:
			t.Stop()
			return
		case <-t.C():
		}
	}
}
