package actor

import (
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
)

// Limiter is a rate limiter as a queue uses it, with the retries counter of the queue that asks
// it.
//
// A limiter of package limiter is safe: it cannot panic, and the queue it is passed to adopts
// it (see Queue.Adopt), so that the queue's owner calls it directly from its own goroutine, and
// calls made to it elsewhere are handed to that owner. Any other limiter runs foreign code,
// which may block, panic or call back into the queue; every queue calls it in the caller's
// goroutine (a FIFO queue as client-go does), so that none of that can stop the owner, and
// callers may call it at the same time, as client-go's do. So does a queue whose limiter
// another queue adopted first: the limiter hands such calls to that queue's owner.
//
// A queue releases the limiters it adopted when its owner hands the state over at shutdown
// (see limiter.Release): from then on it calls them as callers call any other limiter, and the
// limiters keep no reference to the queue.
type Limiter[T comparable] struct {
	limiter limiter.RateLimiter[T]
	safe    atomic.Bool           // adopted: the owner calls it, through adopted
	adopted limiter.Adopted[T]    // for the owner's calls, while safe
	retries metrics.CounterMetric // counts an AddRateLimited before shutdown; nil for none
}

// NewLimiter prepares l for use by a queue, which adopts it with [Queue.Adopt]. A nil l is
// accepted, as client-go's queues accept it: the queue works without rate limiting, and asking
// the limiter panics in the caller (see absent); constructor names the function given nil.
func NewLimiter[T comparable](constructor string, l limiter.RateLimiter[T]) *Limiter[T] {
	if limiter.IsNil(l) {
		l = absent[T]{constructor}
	}
	return &Limiter[T]{limiter: l}
}

// absent stands for the nil rate limiter a queue was built with. client-go's queue calls the
// nil limiter in AddRateLimited, Forget and NumRequeues, and fails there, in the caller, with a
// nil-pointer dereference. absent fails at the same calls, with a runtime.Error that says what
// is wrong. It is not a limiter of package limiter, so no queue adopts it: it is called in the
// caller's goroutine, and the owner's never sees the panic.
type absent[T comparable] struct{ constructor string }

func (a absent[T]) When(T) time.Duration { panic(a.missing("AddRateLimited")) }
func (a absent[T]) Forget(T)             { panic(a.missing("Forget")) }
func (a absent[T]) NumRequeues(T) int    { panic(a.missing("NumRequeues")) }

func (a absent[T]) missing(method string) noLimiter {
	return noLimiter("workqueue: " + method + ": the queue has no rate limiter: " +
		a.constructor + " was given nil")
}

// noLimiter is the panic of a call that needs the rate limiter of a queue built without one.
type noLimiter string

func (e noLimiter) Error() string { return string(e) }

// RuntimeError marks noLimiter as a runtime.Error, as client-go's nil-pointer dereference is.
func (noLimiter) RuntimeError() {}

// Adopt returns the Limiter through which q asks l's limiter, counting retries on retries when
// not nil. q adopts a limiter of package limiter that no other queue has adopted (see
// limiter.Adopt), and its owner then asks it directly; it asks any other limiter in its
// callers' goroutines. Adopt before q's owner first asks the limiter.
func (q *Queue[T]) Adopt(l *Limiter[T], retries metrics.CounterMetric) *Limiter[T] {
	own := &Limiter[T]{limiter: l.limiter, retries: retries}
	q.tomb.Lock()
	defer q.tomb.Unlock()
	select {
	case <-q.handover: // shut down already: nothing to release it
		return own
	default:
	}
	a, ok := limiter.Adopt(l.limiter, q)
	if ok {
		own.adopted = a
		own.safe.Store(true)
	}
	// Released at shutdown even if adopted only in part: a MaxOf's parts taken before one
	// another queue holds stay q's until then.
	q.adopted = append(q.adopted, own)
	return own
}

// release gives back the limiters q adopted. The owner calls it as it hands the state over,
// holding the handover lock, once it has applied its last command.
func (q *Queue[T]) release() {
	for _, l := range q.adopted {
		l.safe.Store(false)
		limiter.Release(l.limiter, q)
	}
	q.adopted = nil
}

// Do runs f in q's owner goroutine, between two commands, and waits for it, raising its panic:
// the calls to a limiter q adopted made outside q (see limiter.Owner). Once q has shut down, f
// runs in the caller, as any command then does. Calling Do from q's owner goroutine, from its
// metrics or its storage, deadlocks.
func (q *Queue[T]) Do(f func()) {
	q.call(command[T]{op: opDo, more: &details[T]{do: f}})
}

// DoLater runs f in q's owner goroutine, in order with the commands sent before and after it,
// without waiting for it: for work on state the owner keeps that no caller needs an answer
// from. A panic of f is kept for the next caller that waits. Once q has shut down, f runs in
// the caller.
func (q *Queue[T]) DoLater(f func()) {
	q.send(command[T]{op: opDo, more: &details[T]{do: f}})
}

// RateLimiter returns the limiter l was made from.
func (l *Limiter[T]) RateLimiter() limiter.RateLimiter[T] { return l.limiter }

// whenAt asks the limiter how long item should wait, at the instant now.
func (l *Limiter[T]) whenAt(item T, now time.Time) time.Duration {
	if l.safe.Load() {
		return l.adopted.WhenAt(item, now)
	}
	return limiter.WhenAt(l.limiter, item, now)
}

// forget makes the limiter forget item's failures.
func (l *Limiter[T]) forget(item T) {
	if l.safe.Load() {
		l.adopted.Forget(item)
		return
	}
	l.limiter.Forget(item)
}

// numRequeues returns the failures the limiter counts for item.
func (l *Limiter[T]) numRequeues(item T) int {
	if l.safe.Load() {
		return l.adopted.NumRequeues(item)
	}
	return l.limiter.NumRequeues(item)
}
