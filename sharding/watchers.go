package sharding

import (
	"context"
	"errors"
	"sync"
)

// BucketWatcher caches the objects of the buckets this replica holds, and only theirs: it is
// told when a bucket is acquired, before its keys are handed out, and when a bucket given up
// has drained. Package shardcache implements it with informers that list and watch only the
// held buckets' objects. Register one with [Sharder.Watch].
//
// Its methods are called from the bucket's election goroutine, for different buckets at
// once, and for one bucket in the order Prepare, Release, Prepare, Release…
type BucketWatcher interface {
	// Prepare is called once this replica has won the bucket's Lease and before the queues
	// accept or list the bucket's keys (QueueConfig.Keys): it returns nil once the bucket's
	// objects are cached (its watch has synced), so that no reconcile of the bucket reads a
	// cache that does not have them yet. The elector keeps renewing the Lease meanwhile. ctx
	// ends when the replica loses the Lease, leaves (Run's context is done), halts, or
	// another replica asks for the bucket; Prepare must then return soon, with an error.
	// Prepare bounds its own wait: an error gives the bucket back (the Lease is released
	// and the replica stays out of the bucket's election for LeaseDuration), and Release
	// follows.
	Prepare(ctx context.Context, bucket int) error
	// Release is called once a bucket given up is drained: its reconciles are done, or its
	// hold window has closed; or after a Prepare of the bucket that failed. The watcher stops
	// watching the bucket and frees its objects. It must not block for long.
	Release(bucket int)
}

// Watch registers w: from now on every bucket this replica acquires is prepared by w (and
// every other watcher) before its keys are handed out, and released once given up. It
// returns the buckets held (or being prepared) when w was registered: their keys may be in
// processing already, so w must start watching them itself, and whoever reads w's cache must
// wait until it has synced (controller-runtime's cache reader does). Call Watch before Run to
// have none. It panics if w is nil. It is safe to call from any goroutine, but it waits while
// a bucket is being prepared.
func (s *Sharder) Watch(w BucketWatcher) []int {
	if w == nil {
		panic("sharding: Sharder.Watch: nil BucketWatcher")
	}
	s.watching.Lock()
	defer s.watching.Unlock()
	s.watchers = append(s.watchers, w)
	return s.Held()
}

// errGiveBack is the cause of a preparation stopped because another replica asked for the
// bucket.
var errGiveBack = errors.New("sharding: another replica asked for the bucket")

// prepare has every watcher cache bucket b's objects, with a context that ends when the
// replica loses the bucket (lead), leaves (ctx), halts, or is asked for it. It returns nil
// and a function to call once the holding has begun, or the error of the first watcher that
// failed. Between the two, no watcher is added: one added later learns of b from Watch.
func (s *Sharder) prepare(ctx, halt, lead context.Context, b int) (func(), error) {
	s.watching.RLock()
	if len(s.watchers) == 0 {
		return s.watching.RUnlock, nil
	}
	preparing, cancel := context.WithCancelCause(lead)
	defer cancel(nil)
	stopOnCtx := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	defer stopOnCtx()
	stopOnHalt := context.AfterFunc(halt, func() { cancel(context.Cause(halt)) })
	defer stopOnHalt()
	// A request for the bucket ends the preparation; one that comes once it is over is left
	// for the holding (the watcher of requests has exited before the outcome is read).
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-s.asked[b]:
			cancel(errGiveBack)
		case <-done:
		}
	}()

	var wg sync.WaitGroup
	errs := make([]error, len(s.watchers))
	for i, w := range s.watchers {
		wg.Go(func() {
			if errs[i] = w.Prepare(preparing, b); errs[i] != nil {
				cancel(errs[i])
			}
		})
	}
	wg.Wait()
	close(done)
	<-watched
	if err := context.Cause(preparing); err != nil {
		s.watching.RUnlock()
		return nil, err
	}
	if err := errors.Join(errs...); err != nil { // a watcher that failed without cancelling
		s.watching.RUnlock()
		return nil, err
	}
	return s.watching.RUnlock, nil
}

// unprepared gives back bucket b, whose Lease l this replica won but whose objects the
// watchers did not cache (err): it stops the elector (stop), releases the Lease unless it was
// lost or the replica halted, has the watchers release the bucket, and stays out of its
// election for LeaseDuration unless the replica is leaving. It reports whether to campaign
// again, as campaign does.
func (s *Sharder) unprepared(ctx, halt, lead context.Context, l *bucketLease, b int, stop func(), err error) bool {
	lost := lead.Err() != nil // read before stop, which ends lead
	stop()
	s.released(b)
	switch {
	case halt.Err() != nil:
		return false
	case lost:
		return true // nothing to release
	}
	released, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.RenewDeadline)
	defer cancel()
	if err := l.release(released); err != nil {
		s.failed(ctx, "release", l.Describe(), err)
	}
	if ctx.Err() != nil {
		return false
	}
	if !errors.Is(err, errGiveBack) {
		s.failed(ctx, "prepare", l.Describe(), err)
	}
	return s.stayOut(ctx, halt)
}

// released has every watcher release bucket b, which this replica has given up and drained.
func (s *Sharder) released(b int) {
	s.watching.RLock()
	watchers := s.watchers
	s.watching.RUnlock()
	for _, w := range watchers {
		w.Release(b)
	}
}
