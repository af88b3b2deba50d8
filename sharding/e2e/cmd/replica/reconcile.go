package main

import (
	"context"
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
// is held, by the clock, for longer than a write takes.
func (r *reconciler) mayWrite(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if r.unsharded {
		return true
	}
	deadline, ok := sharding.Fence(ctx)
	return ok && time.Until(deadline) > writeLatency
}
