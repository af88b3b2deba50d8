package sharding

import (
	"context"
	"sync"
	"time"
)

// tenure is one uninterrupted hold of a bucket by this replica, from acquisition to hand-over.
// Workers enter it when they take one of the bucket's keys and exit it at Done; the hand-over
// ends it, after which no worker enters, and waits until the last one has exited.
type tenure struct {
	bucket int
	// ctx is cancelled when the bucket is lost, when a graceful hand-over runs out of time,
	// and when the sharder halts, so that reconciles can stop early.
	ctx    context.Context
	cancel context.CancelFunc
	lock   *lock
	window time.Duration

	mu       sync.Mutex
	ending   bool
	inFlight int
	drained  chan struct{} // closed once ending and inFlight == 0
}

func newTenure(bucket int, l *lock, window time.Duration) *tenure {
	ctx, cancel := context.WithCancel(context.Background())
	return &tenure{bucket: bucket, ctx: ctx, cancel: cancel, lock: l, window: window, drained: make(chan struct{})}
}

// validUntil is the instant until which this replica may act on the bucket.
func (t *tenure) validUntil() time.Time { return t.lock.validUntil(t.window) }

// accepting reports whether the tenure still takes keys.
func (t *tenure) accepting() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.ending
}

// enter counts one more key in processing, unless the tenure is ending or its hold has
// expired; it reports whether the key may be processed.
func (t *tenure) enter(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ending || !now.Before(t.validUntil()) {
		return false
	}
	t.inFlight++
	return true
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
