package sharding

import (
	"context"
	"sync"
	"time"
)

// tenure is one uninterrupted hold of a bucket by this replica, from acquisition to hand-over.
// Workers enter it when they take one of the bucket's keys and exit it at Done; the hand-over
// ends it, after which no worker enters, and waits until the last one has exited.
//
// Every decision that keeps two replicas apart reads the clock (enter, Queue.Held): none waits
// for a timer or for the elector's report, which a paused process delivers late.
type tenure struct {
	bucket int
	// ctx is cancelled when the bucket is lost, when a graceful hand-over runs out of time,
	// and when the sharder halts, so that reconciles can stop early.
	ctx    context.Context
	cancel context.CancelFunc
	lock   *lock
	// budget is how long before the hold window's end the keys' contexts end: the time a
	// reconcile has to stop once its context is done (Config.DrainBudget).
	budget time.Duration

	mu       sync.Mutex
	ending   bool
	inFlight int
	drained  chan struct{} // closed once ending and inFlight == 0
	// keys is the context of the keys handed out while the deadline was keysEnd; a renewal
	// that moves the deadline starts another, and the keys already out keep theirs.
	keys        context.Context
	keysEnd     time.Time
	releaseKeys context.CancelFunc // of keys; its deadline or cancel releases it anyway
}

func newTenure(bucket int, l *lock, budget time.Duration) *tenure {
	ctx, cancel := context.WithCancel(context.Background())
	return &tenure{bucket: bucket, ctx: ctx, cancel: cancel, lock: l, budget: budget, drained: make(chan struct{})}
}

// holdUntil is the end of the hold window: from then on another replica may acquire the bucket.
func (t *tenure) holdUntil() time.Time { return t.lock.holdUntil() }

// keysDeadline is the deadline of the keys handed out now: the drain budget before the end of
// the hold window, so that a reconcile that stops within the budget of its context's end has
// stopped before another replica may take the bucket.
func (t *tenure) keysDeadline() time.Time { return t.holdUntil().Add(-t.budget) }

// accepting reports whether the tenure still takes keys.
func (t *tenure) accepting() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.ending
}

// enter counts one more key in processing and returns the key's context, unless the tenure is
// ending or the keys' deadline has passed at now (the tenure has lapsed: renewals are late);
// it reports whether the key may be processed.
func (t *tenure) enter(now time.Time) (context.Context, bool) {
	deadline := t.keysDeadline()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ending || !now.Before(deadline) {
		return nil, false
	}
	if !t.keysEnd.Equal(deadline) {
		t.keys, t.releaseKeys = context.WithDeadline(t.ctx, deadline)
		t.keysEnd = deadline
	}
	t.inFlight++
	return t.keys, true
}

// lapsed reports whether the tenure still takes keys but their deadline has passed at now.
func (t *tenure) lapsed(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.ending && !now.Before(t.keysDeadline())
}

// exit counts one key in processing fewer.
func (t *tenure) exit() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inFlight--
	if t.ending && t.inFlight == 0 {
		close(t.drained)
	}
}

// end stops the tenure from taking keys and returns a channel closed once no key entered is
// still in processing. It may be called more than once.
func (t *tenure) end() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ending {
		t.ending = true
		if t.inFlight == 0 {
			close(t.drained)
		}
	}
	return t.drained
}

// running returns the number of keys still in processing.
func (t *tenure) running() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inFlight
}
