package sharding

import "github.com/actorqueue/workqueue"

var _ workqueue.TypedSuperseder[string] = (*Queue[string])(nil)

// Superseded reports whether item, in processing here, will be processed again, on this
// replica or another: it was added again since Get handed it out (the wrapped queue's own
// Superseded, if it has one), or its context has ended (the bucket was lost or handed over,
// its tenure interrupted, or its renewals are late: the item is then enqueued again here once
// done, or listed by the bucket's next holder). It is false for an item not in processing
// here. A long reconcile can check it between steps and stop early; it is a hint, not a
// fence: check [Queue.Held] or [Fence] right before a write. It takes the queue's lock once
// and reads the wrapped queue's answer; it is safe to call from any goroutine.
//
// With it, the controllerruntime module's Link answers Superseded(ctx) for a sharded
// controller too (package crshard's Queue has this method).
func (q *Queue[T]) Superseded(item T) bool {
	q.mu.Lock()
	h := q.processing[item]
	q.mu.Unlock()
	if h == nil {
		return false
	}
	if h.Err() != nil {
		return true
	}
	s, ok := q.inner.(workqueue.TypedSuperseder[T])
	return ok && s.Superseded(item)
}
