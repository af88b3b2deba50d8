package limiter

import (
	"sync/atomic"
	"time"
)

// Handle is a rate limiter as one queue calls it, with the queue's [Retries]. Get one with
// [NewHandle]; its zero value must not be used.
//
// A limiter of this package cannot panic, and the queue it is passed to adopts it (see
// [Handle.Adopt]) unless another queue has already: the queue's owner then calls it without
// locks, and calls made to it elsewhere are handed to that owner. Any other limiter is code of
// others, which may block, panic or call back into the queue: it is called in the goroutine of
// the queue's caller, as client-go calls it. Owned tells the two apart.
//
// Owned, Retries and GiveUp are safe for simultaneous use. WhenAt, Forget, NumRequeues and
// ForgetGivenUp of an owned handle must run where its owner runs functions; of any other,
// anywhere. The queue calls Adopt as it is built and Release as it shuts down.
type Handle[T comparable] struct {
	limiter RateLimiter[T]
	owned   atomic.Bool
	adopted Adopted[T] // the owner's calls, while owned
	retries Retries[T]
}

// NewHandle returns the handle of l with the retries r. A nil l is accepted, as client-go's
// queues accept it: asking the limiter then panics in the caller with a message naming
// constructor, the function given nil.
func NewHandle[T comparable](constructor string, l RateLimiter[T], r Retries[T]) *Handle[T] {
	if IsNil(l) {
		l = missing[T]{constructor}
	}
	return &Handle[T]{limiter: l, retries: r}
}

// Adopt gives the limiter's state to o (see [Adopt]) and reports whether o owns it now. A
// limiter adopted only in part, a MaxOf some of whose parts another owner holds, is not owned,
// but must be released all the same.
func (h *Handle[T]) Adopt(o Owner) bool {
	a, ok := Adopt(h.limiter, o)
	if ok {
		h.adopted = a
		h.owned.Store(true)
	}
	return ok
}

// Release gives the limiter's state back (see [Release]): from then on h is not owned.
func (h *Handle[T]) Release(o Owner) {
	h.owned.Store(false)
	Release(h.limiter, o)
}

// Owned reports whether an owner has adopted the limiter and not released it yet.
func (h *Handle[T]) Owned() bool { return h.owned.Load() }

// Retries returns what the queue counts of the retries through h.
func (h *Handle[T]) Retries() Retries[T] { return h.retries }

// WhenAt asks the limiter how long item should wait, at the instant now.
func (h *Handle[T]) WhenAt(item T, now time.Time) time.Duration {
	if h.Owned() {
		return h.adopted.WhenAt(item, now)
	}
	return WhenAt(h.limiter, item, now)
}

// Forget makes the limiter forget item's failures.
func (h *Handle[T]) Forget(item T) {
	if h.Owned() {
		h.adopted.Forget(item)
		return
	}
	h.limiter.Forget(item)
}

// NumRequeues returns the failures the limiter counts for item.
func (h *Handle[T]) NumRequeues(item T) int {
	if h.Owned() {
		return h.adopted.NumRequeues(item)
	}
	return h.limiter.NumRequeues(item)
}

// ForgetGivenUp is the owner's part of giving up on items: it makes an owned limiter forget
// them. The caller that hears of them does the rest, with GiveUp.
func (h *Handle[T]) ForgetGivenUp(items ...T) {
	if h.Owned() {
		for _, item := range items {
			h.adopted.Forget(item)
		}
	}
}

// GiveUp is the caller's part of giving up on items, once its queue has counted them (see
// [Counts.Count]), in the caller's goroutine: a limiter that is not owned forgets each here,
// the given-up counter counts it, and the give-up function hears of it with its attempts,
// Max+1. If the function panics, the items after it are still given up, and the first panic
// is raised once all are.
func (h *Handle[T]) GiveUp(items ...T) {
	var fault any
	for _, item := range items {
		if !h.Owned() {
			h.limiter.Forget(item)
		}
		if h.retries.GivenUp != nil {
			h.retries.GivenUp.Inc()
		}
		if h.retries.GiveUp != nil {
			func() {
				defer func() {
					if p := recover(); p != nil && fault == nil {
						fault = p
					}
				}()
				h.retries.GiveUp(item, h.retries.Max+1)
			}()
		}
	}
	if fault != nil {
		panic(fault)
	}
}
