package sharding

import (
	"context"
	"errors"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/actorqueue/workqueue/sharding/internal/timing"
)

// The buckets spread over the replicas by a fair share and hand-over requests, whose rules
// live in package timing (Census, Restraint); both only decide when to campaign: who holds a
// bucket is always decided by client-go's election on its Lease. Here is the I/O. The
// balancer lists the Leases every RetryPeriod and writes the requests the census decides on,
// naming this replica in the annotation sharding.actorqueue.io/requested-by of one of the
// busiest replica's Leases. The holder sees it at its next renewal (the request changed the
// Lease's resourceVersion, so the renewal reads the Lease again: bucketLease.Get), hands the
// bucket back gracefully (drain, then release: campaign.go), and stays out of that bucket's
// election for LeaseDuration, during which the requester acquires it. The release keeps the
// annotation, so that the others' Restraint leaves the bucket to the requester; whoever
// acquires the Lease removes it (bucketLease.Update).
//
// spec.preferredHolder, the field Kubernetes' coordinated leader election uses to end a term,
// would say what the request says, but kube-apiserver drops it unless the
// CoordinatedLeaderElection feature gate is on (beta and off by default in v1.37), and with the
// gate on refuses it without spec.strategy, which would hand the election to the API server's
// coordinator. An annotation is stored by every API server.

// labelName labels the Leases of a sharder with its Config.Name, so that they can be listed.
const labelName = "sharding.actorqueue.io/name"

// errAtShare is the error a bucketLease returns instead of acquiring a bucket beyond what the
// balance allows; the elector retries after RetryPeriod.
var errAtShare = errors.New("sharding: this replica holds its fair share of buckets")

// newCensus returns the census of this replica (see timing.Census).
func (s *Sharder) newCensus() *timing.Census {
	return timing.NewCensus(s.cfg.Identity, s.cfg.Buckets, s.cfg.LeaseDuration)
}

// arrive announces this replica (member.go), waits one RetryPeriod, so that the replicas
// starting with it announce themselves too, and takes a first look: the campaigns start with
// a fair share among all of them.
func (s *Sharder) arrive(ctx context.Context, census *timing.Census, p *presence) {
	s.announce(ctx, p)
	wait := time.NewTimer(s.cfg.RetryPeriod)
	defer wait.Stop()
	select {
	case <-wait.C:
	case <-ctx.Done():
		return
	}
	s.look(ctx, census)
}

// balance renews the member Lease and lists the Leases every RetryPeriod until ctx is done,
// updating the fair share and asking the busiest replica for buckets when this one holds
// too few.
func (s *Sharder) balance(ctx context.Context, census *timing.Census, p *presence) {
	ticker := time.NewTicker(s.cfg.RetryPeriod)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		s.announce(ctx, p)
		s.look(ctx, census)
	}
}

// announce creates or renews the member Lease, and reports a failure.
func (s *Sharder) announce(ctx context.Context, p *presence) {
	if err := p.announce(ctx); err != nil && ctx.Err() == nil {
		s.failed(ctx, "announce", s.cfg.Namespace+"/"+p.name, err)
	}
}

// look lists the Leases once, stores the fair share the census computes, and writes the
// requests it decides on; see balance.
func (s *Sharder) look(ctx context.Context, census *timing.Census) {
	leases := s.cfg.Client.Leases(s.cfg.Namespace)
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: labelName + "=" + s.cfg.Name})
	if err != nil {
		if ctx.Err() == nil {
			s.failed(ctx, "list", s.cfg.Namespace, err) // cut off: keep the last fair share
		}
		return
	}
	now := time.Now()
	seen := make([]timing.LeaseSeen, len(list.Items))
	byName := make(map[string]*coordinationv1.Lease, len(list.Items))
	for i := range list.Items {
		lease := &list.Items[i]
		seen[i] = timing.LeaseSeen{Name: lease.Name, Holder: holder(lease), Requester: lease.Annotations[annotationRequest],
			Member: lease.Labels[labelMember] == "true"}
		if lease.Spec.RenewTime != nil {
			seen[i].Renew = lease.Spec.RenewTime.Time
		}
		byName[lease.Name] = lease
	}
	s.share.Store(int64(census.Look(now, seen)))
	s.clear(ctx, census.Departed(), byName)
	for name, ok := census.Ask(); ok; name, ok = census.Ask() {
		lease := byName[name]
		if lease.Annotations == nil {
			lease.Annotations = make(map[string]string)
		}
		lease.Annotations[annotationRequest] = s.cfg.Identity
		if _, err := leases.Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsConflict(err) {
				continue // the Lease moved on since the list: look again next time
			}
			if ctx.Err() == nil {
				s.failed(ctx, "ask", s.cfg.Namespace+"/"+lease.Name, err)
			}
			return
		}
		census.Asked(now, name)
	}
}

// failed reports a Lease request that failed other than by a conflict: to the logger of ctx,
// and to Config.Metrics if it implements FailureMetrics.
func (s *Sharder) failed(ctx context.Context, op, lease string, err error) {
	klog.FromContext(ctx).Error(err, "sharding: a Lease request failed", "op", op, "lease", lease, "identity", s.cfg.Identity)
	if m, ok := s.cfg.Metrics.(FailureMetrics); ok {
		m.RequestFailed(op, err)
	}
}

// requestHandover notes that another replica asked for bucket b.
func (s *Sharder) requestHandover(b int) {
	select {
	case s.asked[b] <- struct{}{}:
	default: // already noted
	}
}
