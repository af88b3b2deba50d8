// Package limiter decides how long an item waits before it is retried: the rate limiters of
// client-go's workqueue, a per-item token bucket, and wait.Backoff-style backoff.
//
// # Ownership
//
// The limiters here hold no locks. A queue calls its limiter only from the queue's owner
// goroutine, so one queue needs none. Give each queue its own limiter, and do not call a
// limiter yourself while a queue uses it; used alone, a limiter may be called from one
// goroutine at a time. (client-go's limiters lock on every call; these need not.)
//
// # Time
//
// A limiter whose answer may depend on the time implements [Timed]: WhenAt takes the instant as
// an argument, and When is WhenAt at time.Now(). That is every limiter here: the token buckets
// refill with time, [Exponential] and [FastSlow] forget idle items when built with
// [ForgetAfter], and the combinators pass the instant on to their parts. A queue calls WhenAt
// with its own clock, so a fake clock governs all of them.
package limiter

import "time"

// RateLimiter decides how long an item waits before it is retried. It is client-go's
// TypedRateLimiter interface.
type RateLimiter[T comparable] interface {
	// When records one more failure of item and returns how long it should wait.
	When(item T) time.Duration
	// Forget stops tracking item: its next failure is treated as its first. Call it when the item
	// succeeds or is given up.
	Forget(item T)
	// NumRequeues returns how many failures of item are being tracked.
	NumRequeues(item T) int
}

// Timed is implemented by limiters whose answer depends on the current time.
type Timed[T comparable] interface {
	// WhenAt is When at the instant now.
	WhenAt(item T, now time.Time) time.Duration
}

// WhenAt asks l how long item should wait, at the instant now when l implements [Timed], and
// through l.When otherwise.
func WhenAt[T comparable](l RateLimiter[T], item T, now time.Time) time.Duration {
	if t, ok := l.(Timed[T]); ok {
		return t.WhenAt(item, now)
	}
	return l.When(item)
}

// Safe reports whether l is one of this package's limiters, built only from parts of this
// package, so that none of its methods can panic for a hashable item. A queue may then record a
// Forget or an AddRateLimited without making the caller wait to hear whether it panicked.
func Safe[T comparable](l RateLimiter[T]) bool {
	s, ok := l.(interface{ safe() bool })
	return ok && s.safe()
}
