package actor

import "github.com/actorqueue/workqueue/limiter"

// Limiter is a rate limiter as a queue uses it. Its methods are only ever called by the owner
// of the queue it is passed to.
type Limiter[T comparable] struct {
	limiter limiter.RateLimiter[T]
	safe    bool // cannot panic: callers need not wait for the outcome
}

// NewLimiter prepares l for use by queues. It panics, naming caller, if l is nil.
func NewLimiter[T comparable](caller string, l limiter.RateLimiter[T]) *Limiter[T] {
	if limiter.IsNil(l) {
		panic("workqueue: " + caller + ": nil rate limiter")
	}
	return &Limiter[T]{limiter: l, safe: limiter.Safe(l)}
}

// RateLimiter returns the limiter l was made from.
func (l *Limiter[T]) RateLimiter() limiter.RateLimiter[T] { return l.limiter }
