package actor

import (
	"sync"
	"time"

	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
)

// Limiter is a rate limiter as a queue uses it, with the retries counter of the queue that asks
// it.
//
// A limiter of package limiter is safe: it cannot panic, and the owner of the queue it is
// passed to calls it from its own goroutine. Any other limiter runs foreign code, which may
// block, panic or call back into the queue; every queue calls it in the caller's goroutine (a
// FIFO queue as client-go does), so that none of that can stop the owner. Every call to a
// limiter that is not safe is made under the Limiter's lock, wherever it is made: it may hold
// limiters of package limiter, which are not safe for concurrent use.
type Limiter[T comparable] struct {
	limiter limiter.RateLimiter[T]
	safe    bool
	retries metrics.CounterMetric // counts an AddRateLimited before shutdown; nil for none
	mu      sync.Mutex            // held for every call to a limiter that is not safe
}

// NewLimiter prepares l for use by a queue. It panics, naming caller, if l is nil.
func NewLimiter[T comparable](caller string, l limiter.RateLimiter[T]) *Limiter[T] {
	if limiter.IsNil(l) {
		panic("workqueue: " + caller + ": nil rate limiter")
	}
	return &Limiter[T]{limiter: l, safe: limiter.Safe(l)}
}

// WithRetries returns a Limiter for the same limiter that counts retries on retries, when not
// nil.
func (l *Limiter[T]) WithRetries(retries metrics.CounterMetric) *Limiter[T] {
	return &Limiter[T]{limiter: l.limiter, safe: l.safe, retries: retries}
}

// RateLimiter returns the limiter l was made from.
func (l *Limiter[T]) RateLimiter() limiter.RateLimiter[T] { return l.limiter }

// whenAt asks the limiter how long item should wait, at the instant now.
func (l *Limiter[T]) whenAt(item T, now time.Time) time.Duration {
	if !l.safe {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	return limiter.WhenAt(l.limiter, item, now)
}

// forget makes the limiter forget item's failures.
func (l *Limiter[T]) forget(item T) {
	if !l.safe {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	l.limiter.Forget(item)
}

// numRequeues returns the failures the limiter counts for item.
func (l *Limiter[T]) numRequeues(item T) int {
	if !l.safe {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	return l.limiter.NumRequeues(item)
}

// countRetry counts one retry, if l has a counter. It may panic: the counter is foreign code.
func (l *Limiter[T]) countRetry() {
	if l.retries != nil {
		l.retries.Inc()
	}
}
