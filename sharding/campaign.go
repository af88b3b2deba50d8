package sharding

import (
	"context"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/klog/v2"
)

// campaign runs one campaign for bucket b: a new client-go LeaderElector campaigns for the
// bucket's Lease, the campaign holds the bucket once elected, and hands it over when the
// elector loses it or ctx or halt is done. It reports whether to campaign again.
func (s *Sharder) campaign(ctx, halt context.Context, b int) bool {
	defer s.unclaim(b) // acquired and then not held: given back, or never prepared
	l := newBucketLease(s, b)
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
	// A request noted by an earlier campaign's elector, which has stopped: this campaign's own
	// sees the Lease afresh. Dropped here, before the campaign, not as the bucket is acquired:
	// the elector may note a request on the Lease it acquires (one still naming this replica,
	// whose request stays) before the holding begins, and on the fast path of client-go's
	// renewals, which read nothing while the Lease is unchanged, it would never note it again.
	select {
	case <-s.asked[b]:
	default:
	}
	// The elector's context is not ctx: a graceful hand-over keeps renewing while it drains.
	// It logs to ctx's logger, quietly (see logs.go).
	electing, stopElecting := context.WithCancel(klog.NewContext(halt, klog.FromContext(ctx)))
	defer stopElecting()
	electing = quietLogger(electing)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		elector.Run(electing)
		l.hold.End() // no write of this campaign comes after: the next one begins a tenure
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
	h := newHolding(b, l, &s.tenures[b])
	s.acquired(h)
	prepared()
	select {
	case <-halt.Done():
		s.givingUp(h)
		h.cancel()
		<-stopped
		s.released(b)
		return false
	case <-lead.Done():
		s.lose(h, Lost, time.Now(), s.givingUp(h))
		<-stopped
		s.released(b)
		return true
	case <-ctx.Done():
		s.handBack(ctx, h, lead, halt, stop)
		s.released(b)
		return false
	case <-s.asked[b]:
		s.handBack(ctx, h, lead, halt, stop)
		s.released(b)
		return s.stayOut(ctx, halt)
	}
}

// stayOut keeps this replica out of a bucket's election for LeaseDuration after it gave the
// bucket back, so that the replica that asked for it acquires it. It reports whether to
// campaign again: not if ctx or halt is done meanwhile.
func (s *Sharder) stayOut(ctx, halt context.Context) bool {
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

// lose hands over a bucket whose Lease this replica no longer renews: its context is cancelled
// at once, and lose waits until its keys in processing are done or until the hold window
// closes, after which another replica may acquire it. (The keys' contexts have ended the drain
// budget before that already, whatever the elector reported and when.)
func (s *Sharder) lose(h *holding, cause Cause, since time.Time, drained <-chan struct{}) {
	h.cancel()
	deadline := time.NewTimer(time.Until(h.current().Until))
	defer deadline.Stop()
	overran := 0
	select {
	case <-drained:
	case <-deadline.C:
		overran = h.running()
	}
	s.gaveUp(Handover{Bucket: h.bucket, Cause: cause, Drain: time.Since(since), Overran: overran})
}

// handBack hands over a bucket gracefully: it stops handing the bucket's keys out, waits up to
// LeaseDuration for those in processing while the elector keeps renewing, then stops the
// elector and releases the Lease (a request by another replica stays on it, so that the others
// leave the bucket to the requester). If the elector loses the bucket meanwhile, or the keys
// are not done in time, the Lease is not released and the hand-over ends as lose's does.
func (s *Sharder) handBack(ctx context.Context, h *holding, lead, halt context.Context, stop func()) {
	since := time.Now()
	drained := s.givingUp(h)
	patience := time.NewTimer(s.cfg.LeaseDuration)
	defer patience.Stop()
	select {
	case <-drained:
		stop()
		released, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.RenewDeadline)
		defer cancel()
		if err := h.lease.release(released); err != nil {
			// The others take the bucket once the Lease expires instead.
			s.failed(ctx, "release", h.lease.Describe(), err)
		}
		h.cancel()
		s.gaveUp(Handover{Bucket: h.bucket, Cause: Released, Drain: time.Since(since)})
	case <-halt.Done():
		h.cancel()
		stop()
	case <-lead.Done():
		stop()
		s.lose(h, Lost, since, drained)
	case <-patience.C:
		stop()
		s.lose(h, Expired, since, drained)
	}
}
