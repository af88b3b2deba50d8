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
	// ctx is cancelled (by cancel) when the bucket is lost, when a graceful hand-over runs out
	// of time, and when the sharder halts, so that reconciles can stop early.
	ctx       context.Context
	cancelCtx context.CancelFunc
	lock      *lock
	// budget is how long before the hold window's end the keys' contexts end: the time a
	// reconcile has to stop once its context is done (Config.DrainBudget).
	budget time.Duration

	mu       sync.Mutex
	ending   bool
	inFlight int
	drained  chan struct{} // closed once ending and inFlight == 0
	// keys is the context of the keys handed out since the tenure last lapsed, nil while it
	// has lapsed. It ends once the clock passes the keys' deadline as the latest renewal set
	// it, or with ctx: alarm runs check at that deadline and re-arms while renewals move it.
	// A fixed deadline per key would cut reconciles short on a healthy replica, since the
	// hold window moves only once a second (see lock.go).
	keys    context.Context
	endKeys context.CancelFunc
	alarm   *time.Timer // nil until the first key; stopped by cancel
}

func newTenure(bucket int, l *lock, budget time.Duration) *tenure {
	ctx, cancel := context.WithCancel(context.Background())
	return &tenure{bucket: bucket, ctx: ctx, cancelCtx: cancel, lock: l, budget: budget, drained: make(chan struct{})}
}

// cancel ends the tenure's context, and so every key's, and stops the alarm.
func (t *tenure) cancel() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cancelCtx()
	if t.alarm != nil {
		t.alarm.Stop()
	}
	t.keys = nil
}

// holdUntil is the end of the hold window: from then on another replica may acquire the bucket.
func (t *tenure) holdUntil() time.Time { return t.lock.holdUntil() }

// keysDeadline is when the keys' context ends unless a renewal moves it: the drain budget
// before the end of the hold window, so that a reconcile that stops within the budget of its
// context's end has stopped before another replica may take the bucket.
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
	if t.ending || t.ctx.Err() != nil || !now.Before(deadline) {
		return nil, false
	}
	if t.keys == nil {
		t.keys, t.endKeys = context.WithCancel(t.ctx)
		if t.alarm == nil {
			t.alarm = time.AfterFunc(deadline.Sub(now), t.check)
		} else {
			t.alarm.Reset(deadline.Sub(now))
		}
	}
	t.inFlight++
	return t.keys, true
}

// check ends the keys' context if their deadline has passed, and otherwise re-arms the alarm
// for the deadline a renewal has set since. The alarm runs it.
func (t *tenure) check() {
	deadline := t.keysDeadline()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys == nil {
		return // lapsed already, or cancelled
	}
	if now := time.Now(); now.Before(deadline) {
		t.alarm.Reset(deadline.Sub(now))
		return
	}
	t.endKeys()
	t.keys = nil
}

// cut reports whether keys, a context enter returned, has ended while the tenure still takes
// keys: the tenure lapsed, and its keys are the replica's to process again.
func (t *tenure) cut(keys context.Context) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.ending && keys.Err() != nil
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
