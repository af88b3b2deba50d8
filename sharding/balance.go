package sharding

import (
	"context"
	"errors"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// The buckets spread over the replicas by two rules, both of which only decide when to
// campaign: who holds a bucket is always decided by client-go's election on its Lease.
//
//   - Fair share. Every RetryPeriod a replica lists the Leases and counts the live replicas:
//     itself and every holder whose Lease records it has seen change within LeaseDuration.
//     It does not acquire a bucket while it holds ceil(Buckets/live) or more, unless the bucket
//     has stayed free for three RetryPeriods, so that a bucket nobody else takes is taken
//     anyway.
//   - Hand-over requests. A replica holding at least two buckets fewer than the busiest live
//     replica names itself in the annotation sharding.actorqueue.io/requested-by on one of that
//     replica's Leases. The holder sees it at its next renewal (the request changed the
//     Lease's resourceVersion, so the renewal reads the Lease again), hands the bucket back
//     gracefully (drain, then release), and stays out of that bucket's election for
//     LeaseDuration, during which the requester acquires it. The release keeps the annotation,
//     and the others leave the bucket to the requester for three RetryPeriods; whoever acquires
//     the Lease removes it.
//
// spec.preferredHolder, the field Kubernetes' coordinated leader election uses to end a term,
// would say the same, but kube-apiserver drops it unless the CoordinatedLeaderElection feature
// gate is on (beta and off by default in v1.37), and with the gate on refuses it without
// spec.strategy, which would hand the election to the API server's coordinator. An annotation
// is stored by every API server.

// labelName labels the Leases of a sharder with its Config.Name, so that they can be listed.
const labelName = "sharding.actorqueue.io/name"

// errAtShare is the error the lock returns instead of acquiring a bucket beyond the fair share;
// the elector retries after RetryPeriod.
var errAtShare = errors.New("sharding: this replica holds its fair share of buckets")

// leaseView is what the balancer last saw of one Lease.
type leaseView struct {
	holder    string
	renew     time.Time // spec.renewTime, as the holder wrote it: compared, never trusted as time
	changedAt time.Time // when this replica saw holder or renew change, by its own clock
}

// balance lists the Leases every RetryPeriod until ctx is done, updating the fair share and
// asking the busiest replica for buckets when this one holds too few. A replica that holds
// nothing is seen by the others through the hand-over requests that name it (the annotation
// requested-by); until it asks, they do not count it, so replicas that start together each
// compute a share among fewer replicas than there are, and ask for more than they keep.
func (s *Sharder) balance(ctx context.Context) {
	views := make(map[string]leaseView)
	requested := make(map[string]time.Time) // Lease name → when the request lapses
	ticker := time.NewTicker(s.cfg.RetryPeriod)
	defer ticker.Stop()
	for {
		s.look(ctx, views, requested)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// look lists the Leases once; see balance.
func (s *Sharder) look(ctx context.Context, views map[string]leaseView, requested map[string]time.Time) {
	leases := s.cfg.Client.Leases(s.cfg.Namespace)
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: labelName + "=" + s.cfg.Name})
	if err != nil {
		if ctx.Err() == nil {
			s.failed(ctx, "list", s.cfg.Namespace, err) // cut off: keep the last fair share
		}
		return
	}
	now := time.Now()
	counts := map[string]int{s.cfg.Identity: 0}
	var mine int
	byHolder := make(map[string][]*coordinationv1.Lease)
	for i := range list.Items {
		lease := &list.Items[i]
		view := leaseView{holder: holder(lease)}
		if lease.Spec.RenewTime != nil {
			view.renew = lease.Spec.RenewTime.Time
		}
		if old, ok := views[lease.Name]; ok && old.holder == view.holder && old.renew.Equal(view.renew) {
			view.changedAt = old.changedAt
		} else {
			view.changedAt = now
		}
		views[lease.Name] = view
		requester := lease.Annotations[annotationRequest]
		if requester != "" && now.Sub(view.changedAt) < s.cfg.LeaseDuration {
			counts[requester] += 0 // a replica asking for a bucket, or handed one, is live
		}
		if view.holder == "" || now.Sub(view.changedAt) >= s.cfg.LeaseDuration {
			continue // free, released, or its holder stopped renewing
		}
		counts[view.holder]++
		if view.holder == s.cfg.Identity {
			mine++
		} else if requester == "" {
			byHolder[view.holder] = append(byHolder[view.holder], lease)
		}
	}
	share := (s.cfg.Buckets + len(counts) - 1) / len(counts)
	s.share.Store(int64(share))

	for name, until := range requested {
		if now.After(until) || views[name].holder == s.cfg.Identity {
			delete(requested, name) // lapsed, or granted
		}
	}
	// Ask the busiest replicas for buckets while this one holds two fewer than they do.
	for deficit := share - mine - len(requested); deficit > 0; deficit-- {
		busiest := ""
		for holder, leases := range byHolder {
			if len(leases) > 0 && (busiest == "" || counts[holder] > counts[busiest]) {
				busiest = holder
			}
		}
		if busiest == "" || counts[busiest] < mine+len(requested)+2 {
			return
		}
		lease := byHolder[busiest][0]
		byHolder[busiest] = byHolder[busiest][1:]
		counts[busiest]--
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
		requested[lease.Name] = now.Add(s.cfg.LeaseDuration)
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

// mayAcquire reports whether this replica may acquire a bucket: it holds fewer than its fair
// share and another replica has not asked for the bucket, or the bucket has stayed free since
// firstRefused for the grace period.
func (s *Sharder) mayAcquire(firstRefused time.Time, requestedByAnother bool) bool {
	if !firstRefused.IsZero() && time.Since(firstRefused) >= s.grace() {
		return true
	}
	s.mu.Lock()
	holding := s.holding
	s.mu.Unlock()
	return !requestedByAnother && int64(holding) < s.share.Load()
}

// grace is how long a free bucket waits for a replica below its share, or for the replica it
// was handed to, before any replica may take it: three attempts of theirs.
func (s *Sharder) grace() time.Duration { return 3 * s.cfg.RetryPeriod }

// requestHandover notes that another replica asked for bucket b.
func (s *Sharder) requestHandover(b int) {
	select {
	case s.asked[b] <- struct{}{}:
	default: // already noted
	}
}

// quietLogger returns ctx with a logger that drops the elector's reports of errAtShare, which
// are the balancing at work rather than failures.
func quietLogger(ctx context.Context) context.Context {
	logger := klog.FromContext(ctx)
	if logger.GetSink() == nil {
		return ctx // logr.Discard
	}
	// WithSink, unlike logr.New, does not Init the sink again: it is shared.
	return klog.NewContext(ctx, logger.WithSink(quietSink{logger.GetSink()}))
}

// quietSink is a logr.LogSink that drops errors wrapping errAtShare.
type quietSink struct{ logr.LogSink }

func (q quietSink) Error(err error, msg string, keysAndValues ...any) {
	if !errors.Is(err, errAtShare) {
		q.LogSink.Error(err, msg, keysAndValues...)
	}
}

func (q quietSink) WithValues(keysAndValues ...any) logr.LogSink {
	return quietSink{q.LogSink.WithValues(keysAndValues...)}
}

func (q quietSink) WithName(name string) logr.LogSink { return quietSink{q.LogSink.WithName(name)} }
