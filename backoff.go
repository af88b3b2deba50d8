package workqueue

import (
	"time"

	"github.com/actorqueue/workqueue/limiter"
)

// Backoff is a sequence of growing waits, as k8s.io/apimachinery's wait.Backoff: see
// limiter.Backoff.
type Backoff = limiter.Backoff

// BackoffManager hands out the next wait of a backoff scheme, as apimachinery's
// wait.BackoffManager.
type BackoffManager = limiter.BackoffManager

// Timer is a wait handed out by a BackoffManager.
type Timer = limiter.Timer

// Jitter returns a random duration between duration and duration + maxFactor·duration; a
// maxFactor of zero or less means 1.
func Jitter(duration time.Duration, maxFactor float64) time.Duration {
	return limiter.Jitter(duration, maxFactor)
}

// NewExponentialBackoffManager returns a BackoffManager whose waits start at initBackoff, grow
// by backoffFactor up to maxBackoff and are jittered by jitter; after resetDuration without a
// backoff, they start over. A nil clock means the real one.
func NewExponentialBackoffManager(initBackoff, maxBackoff, resetDuration time.Duration, backoffFactor, jitter float64, clock Clock) BackoffManager {
	return limiter.NewExponentialBackoffManager(initBackoff, maxBackoff, resetDuration, backoffFactor, jitter, clock)
}

// BackoffUntil calls f, then waits as backoff says, and again, until stopCh is closed. With
// sliding, each wait starts after f returns; without, it starts before f is called.
func BackoffUntil(f func(), backoff BackoffManager, sliding bool, stopCh <-chan struct{}) {
	limiter.BackoffUntil(f, backoff, sliding, stopCh)
}
