package sharding

import (
	"context"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
)

// term runs one term of the election of bucket b: it campaigns with a new client-go
// LeaderElector, leads the bucket if elected, and hands it over when the elector loses it or
// ctx or halt is done. It reports whether to campaign again.
func (s *Sharder) term(ctx, halt context.Context, b int) bool {
	l := &lock{sharder: s, bucket: b, seen: &s.seen[b],
		meta: metav1.ObjectMeta{Namespace: s.cfg.Namespace, Name: s.cfg.Name + "-" + strconv.Itoa(b)}}
	leading := make(chan context.Context, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:          l,
		LeaseDuration: s.cfg.LeaseDuration,
		RenewDeadline: s.cfg.RenewDeadline,
		RetryPeriod:   s.cfg.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lead context.Context) { leading <- lead },
			OnStoppedLeading: func() {},
		},
		// Never: client-go would release the Lease as soon as its renewals fail, before the
		// bucket is drained. A graceful hand-over releases it itself, once drained.
		ReleaseOnCancel: false,
		Name:            l.Describe(),
	})
	if err != nil {
		panic("sharding: " + err.Error()) // Config.withDefaults checks what NewLeaderElector does
	}
	// A request noted by an earlier term's elector, which has stopped: this term's own see the
	// Lease afresh. Dropped here, before the campaign, not as the tenure begins: the elector
	// may note a request on the Lease it acquires (one still naming this replica, whose
	// request stays) before the tenure begins, and on the fast path of client-go's renewals,
	// which read nothing while the Lease is unchanged, it would never note it again.
	select {
	case <-s.asked[b]:
	default:
	}
	// The elector's context is not ctx: a graceful hand-over keeps renewing while it drains.
	electing, stopElecting := context.WithCancel(quietLogger(halt))
	defer stopElecting()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		elector.Run(electing)
	}()
	stop := func() {
		stopElecting()
		<-stopped
	}

	var lead context.Context
	select {
	case lead = <-leading:
	case <-ctx.Done():
		stop()
		return false
	case <-halt.Done():
		<-stopped
		return false
	}

	prepared, err := s.prepare(ctx, halt, lead, b) // the watchers cache the bucket's objects
	if err != nil {
		return s.unprepared(ctx, halt, lead, l, b, stop, err)
	}
	t := newTenure(b, l, s.cfg.drainBudget())
	s.begin(t)
	prepared()
	select {
	case <-halt.Done():
		s.finish(t)
		t.cancel()
		<-stopped
		s.released(b)
		return false
	case <-lead.Done():
		s.lose(t, Lost, time.Now(), s.finish(t))
		<-stopped
		s.released(b)
		return true
	case <-ctx.Done():
		s.handBack(ctx, t, lead, halt, stop)
		s.released(b)
		return false
	case <-s.asked[b]:
		s.handBack(ctx, t, lead, halt, stop)
		s.released(b)
		// Stay out of the election while the requester acquires the bucket.
		pause := time.NewTimer(s.cfg.LeaseDuration)
		defer pause.Stop()
		select {
		case <-pause.C:
			return true
		case <-ctx.Done():
		case <-halt.Done():
		}
		return false
	}
}

// lose hands over a bucket whose Lease this replica no longer renews: its context is cancelled
// at once, and lose waits until its keys in processing are done or until the hold window
// closes, after which another replica may acquire it. (The keys' contexts have ended the drain
// budget before that already, whatever the elector reported and when.)
func (s *Sharder) lose(t *tenure, cause Cause, since time.Time, drained <-chan struct{}) {
	t.cancel()
	deadline := time.NewTimer(time.Until(t.holdUntil()))
	defer deadline.Stop()
	overran := 0
	select {
	case <-drained:
	case <-deadline.C:
		overran = t.running()
	}
	s.cfg.Metrics.HandedOver(Handover{Bucket: t.bucket, Cause: cause, Drain: time.Since(since), Overran: overran})
}

// handBack hands over a bucket gracefully: it stops handing the bucket's keys out, waits up to
// LeaseDuration for those in processing while the elector keeps renewing, then stops the
// elector and releases the Lease (a request by another replica stays on it, so that the others
// leave the bucket to the requester). If the elector loses the bucket meanwhile, or the keys
// are not done in time, the Lease is not released and the hand-over ends as lose's does.
func (s *Sharder) handBack(ctx context.Context, t *tenure, lead, halt context.Context, stop func()) {
	since := time.Now()
	drained := s.finish(t)
	patience := time.NewTimer(s.cfg.LeaseDuration)
	defer patience.Stop()
	select {
	case <-drained:
		stop()
		released, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.RenewDeadline)
		defer cancel()
		if err := t.lock.release(released); err != nil {
			// The others take the bucket once the Lease expires instead.
			s.failed(ctx, "release", t.lock.Describe(), err)
		}
		t.cancel()
		s.cfg.Metrics.HandedOver(Handover{Bucket: t.bucket, Cause: Released, Drain: time.Since(since)})
	case <-halt.Done():
		t.cancel()
		stop()
	case <-lead.Done():
		stop()
		s.lose(t, Lost, since, drained)
	case <-patience.C:
		stop()
		s.lose(t, Expired, since, drained)
	}
}
