package main

import (
	"context"
	"sync"
	"time"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// writeLatency bounds how long one of a reconcile's writes takes to take effect: a line
// appended to the record. A write is made only if the bucket is held for longer than that.
const writeLatency = time.Millisecond

// reconciler is the work of one reconcile, the same for every kind of replica: a reconcile
// as the sharding package asks for one. It works for work, writing writes times at even
// intervals (the last at the end of its work); right before each write it checks, by the
// clock, that its bucket is still held (sharding.Fence), as a check of its context alone is
// not enough after a process pause. Once its context ends, or a check fails, it writes nothing
// more and returns stopLatency later, as a reconcile that takes a moment to stop would.
type reconciler struct {
	rec               *record.Writer
	work, stopLatency time.Duration
	writes            int
	// unsharded skips the check before each write: there is no bucket to hold.
	unsharded bool
}

// reconcile reconciles key, read from the cache at generation gen and resourceVersion rv,
// under ctx, recording its start, its writes and its end. It reports whether it completed.
func (r *reconciler) reconcile(ctx context.Context, key string, gen int, rv string) bool {
	r.rec.Write(record.Event{Kind: record.Start, Key: key, Gen: gen, RV: rv})
	step := r.work / time.Duration(r.writes)
	timer := time.NewTimer(step)
	defer timer.Stop()
	completed := true
	for range r.writes {
		select {
		case <-timer.C:
		case <-ctx.Done():
			completed = false
		}
		if !completed || !r.mayWrite(ctx) {
			completed = false
			break
		}
		r.rec.Write(record.Event{Kind: record.Write, Key: key, Gen: gen, RV: rv})
		timer.Reset(step)
	}
	if !completed {
		time.Sleep(r.stopLatency) // the reconcile's own way out, writing nothing
	}
	r.rec.Write(record.Event{Kind: record.End, Key: key, Gen: gen, RV: rv, Cancelled: !completed})
	return completed
}

// mayWrite reports whether a write may be made now: the context has not ended and the bucket
// is held, by the clock, for longer than a write takes. While stalled, it waits between the
// two checks.
func (r *reconciler) mayWrite(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if r.unsharded {
		return true
	}
	stalled.wait()
	deadline, ok := sharding.Fence(ctx)
	return ok && time.Until(deadline) > writeLatency
}

// stalled holds every reconcile right before its check of Fence while it is on: a worker
// stopped there for as long as the test wants, as a pause of the whole process could not stop
// it (the process's elector and answers would stop too). SIGUSR1 turns it on, SIGUSR2 off
// (see main).
var stalled stall

// stall is a gate that reconciles wait at while it is on.
type stall struct {
	mu sync.Mutex
	on chan struct{} // nil while off; closed when turned off
}

func (s *stall) wait() {
	s.mu.Lock()
	on := s.on
	s.mu.Unlock()
	if on != nil {
		<-on
	}
}

func (s *stall) set(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case on && s.on == nil:
		s.on = make(chan struct{})
	case !on && s.on != nil:
		close(s.on)
		s.on = nil
	}
}
