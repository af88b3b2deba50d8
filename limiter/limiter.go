// Package limiter decides how long an item waits before it is retried: the rate limiters of
// client-go's workqueue, a per-item token bucket, and wait.Backoff-style backoff.
//
// # Ownership
//
// The limiters here are safe for simultaneous use by multiple goroutines, as client-go's are,
// but a queue calls its own without locks. A queue adopts its limiter (see [Adopt]): from then
// on, the state of the limiter lives in the queue's owner goroutine, which calls it directly,
// and a call made anywhere else, by your code or by another queue sharing the limiter, is
// handed to that goroutine and waits for it, behind the work the owner is doing. A limiter no
// queue has adopted takes a lock for each call, and so does one whose queue has shut down: the
// queue releases it then (see [Release]). So sharing a limiter, or calling one yourself, is
// correct anywhere, and costs a round trip to the owner; a queue with a limiter of its own pays
// for neither. While a queue owns it, calls to the limiter from outside the queue's
// testing/synctest bubble are not allowed, as calls to the queue itself are not: they would
// send on the bubble's channels. A combinator ([MaxOf], [MaxWait]) is adopted with its parts; when one of
// them has another owner already, the queue calls the combinator as anyone else does, and the
// parts it adopted before that one stay its own until it shuts down.
//
// A limiter adopted by a queue must not be called from that queue's owner goroutine other than
// by the queue: from its metrics or its custom storage, the call would wait for itself. For
// the same reason, two queues whose metrics each call a limiter the other adopted can stop
// each other.
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
//
// A type of yours that embeds one of this package's limiters implements Timed through the
// WhenAt it embeds, which would skip the When your type declares. Since a promoted WhenAt
// cannot be told apart from a declared one, [WhenAt] asks any such type through When, as
// client-go does, even one that declares a WhenAt of its own; it asks any other type that
// implements Timed through WhenAt.
type Timed[T comparable] interface {
	// WhenAt is When at the instant now.
	WhenAt(item T, now time.Time) time.Duration
}

// WhenAt asks l how long item should wait, at the instant now when l implements [Timed], and
// through l.When otherwise, or when l embeds one of this package's limiters (see [Timed]).
func WhenAt[T comparable](l RateLimiter[T], item T, now time.Time) time.Duration {
	if t, ok := l.(Timed[T]); ok && !embeds(l) {
		return t.WhenAt(item, now)
	}
	return l.When(item)
}

// embeds reports whether l has the methods of this package's limiters without being one of
// them: whether its type embeds one.
func embeds[T comparable](l RateLimiter[T]) bool {
	if _, ok := l.(core[T]); !ok {
		return false
	}
	_, own := ours(l)
	return !own
}

// Safe reports whether l is one of this package's limiters, built only from parts of this
// package, so that none of its methods can panic for a hashable item. A queue may then record a
// Forget or an AddRateLimited without making the caller wait to hear whether it panicked. A
// type of yours that embeds one of them is not safe: its own methods may do anything.
func Safe[T comparable](l RateLimiter[T]) bool {
	c, ok := ours(l)
	return ok && !isNil(l) && c.safe() // a nil *MaxWait cannot run MaxWait's methods
}
