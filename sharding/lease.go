package sharding

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/retry"

	"github.com/actorqueue/workqueue/sharding/internal/timing"
)

// bucketLease is a bucket's Lease as one campaign's elector reads and writes it: client-go's
// resource lock (resourcelock.Interface), with the same record in the same fields and the
// same optimistic concurrency on resourceVersion as its LeaseLock. In addition it
//
//   - tells the bucket's Hold (package timing) of every write naming this replica and of its
//     success, and passes the tenure that results to the sharder (Sharder.renewed);
//   - passes on hand-over requests, which other replicas write into an annotation of the
//     Lease (see balance.go), and clears them when it acquires the Lease;
//   - refuses to acquire the bucket beyond what the balance allows (timing.Restraint).
//
// The elector calls Get, Create and Update from its goroutine, one at a time; release is
// called once the elector has stopped.
type bucketLease struct {
	sharder   *Sharder
	bucket    int
	meta      metav1.ObjectMeta // namespace and name of the Lease
	hold      *timing.Hold      // the bucket's, across campaigns
	restraint timing.Restraint  // this campaign's

	lease     *coordinationv1.Lease // as last read or written
	requester string                // the replica asking for the bucket, from lease's annotation
	raw       []byte                // the record of the Lease as last read, as the elector compares records
}

// annotationRequest names, on a Lease, the replica that asked its holder for the bucket; it
// stays when the holder releases the Lease, so that the others leave the bucket to the
// requester, and is removed by whoever acquires the Lease. An annotation, unlike
// spec.preferredHolder, is stored by every API server (see balance.go).
const annotationRequest = "sharding.actorqueue.io/requested-by"

var _ resourcelock.Interface = (*bucketLease)(nil)

func newBucketLease(s *Sharder, b int) *bucketLease {
	return &bucketLease{sharder: s, bucket: b, hold: &s.holds[b],
		meta: metav1.ObjectMeta{Namespace: s.cfg.Namespace, Name: leaseName(s.cfg.Name, b)}}
}

// leaseName is the name of bucket b's Lease: "<name>-<b>".
func leaseName(name string, b int) string { return name + "-" + strconv.Itoa(b) }

func (l *bucketLease) Identity() string   { return l.sharder.cfg.Identity }
func (l *bucketLease) Describe() string   { return l.meta.Namespace + "/" + l.meta.Name }
func (l *bucketLease) RecordEvent(string) {}

// Get reads the Lease, and passes on to the sharder a request by another replica to hand the
// bucket over while this one holds it.
func (l *bucketLease) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	lease, err := l.sharder.cfg.Client.Leases(l.meta.Namespace).Get(ctx, l.meta.Name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, l.refused(ctx, "get", err)
	}
	record, raw, err := observe(&lease.Spec)
	if err != nil {
		return nil, nil, err
	}
	l.keep(lease)
	l.raw = raw
	if record.HolderIdentity == l.Identity() && l.requester != "" && l.requester != l.Identity() {
		l.sharder.requestHandover(l.bucket)
	}
	return record, raw, nil
}

// Create creates the Lease with record. Beyond the fair share, it refuses (see balance.go).
func (l *bucketLease) Create(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	ok, fresh := l.claim()
	if !ok {
		return errAtShare
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
		Namespace: l.meta.Namespace, Name: l.meta.Name, Labels: map[string]string{labelName: l.sharder.cfg.Name},
	}}
	err := l.write(ctx, lease, record, true, true)
	if err != nil && fresh {
		l.sharder.unclaim(l.bucket)
	}
	return err
}

// Update writes record into the Lease as last read or written. An update that would acquire
// the bucket beyond what the balance allows is refused (see balance.go); one that acquires it
// removes a hand-over request, which it grants or overrides.
func (l *bucketLease) Update(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	if l.lease == nil {
		return errors.New("sharding: Lease not read before update")
	}
	lease := l.lease.DeepCopy()
	acquiring, fresh := holder(lease) != l.Identity(), false
	if acquiring {
		var ok bool
		if ok, fresh = l.claim(); !ok {
			return errAtShare
		}
		delete(lease.Annotations, annotationRequest)
	}
	if lease.Labels == nil {
		lease.Labels = make(map[string]string)
	}
	lease.Labels[labelName] = l.sharder.cfg.Name
	err := l.write(ctx, lease, record, false, acquiring)
	if err != nil && fresh {
		l.sharder.unclaim(l.bucket)
	}
	return err
}

// write stores lease with record as its spec, creating it if create; acquiring says whether
// the Lease it replaces names another holder or none. A write naming this replica is noted by
// the bucket's Hold as it starts and, if it succeeds, as it is answered.
func (l *bucketLease) write(ctx context.Context, lease *coordinationv1.Lease, record resourcelock.LeaderElectionRecord, create, acquiring bool) error {
	ours := record.HolderIdentity == l.Identity()
	if ours {
		record.RenewTime = metav1.NewTime(l.hold.RenewTime(record.RenewTime.Time))
	}
	lease.Spec = resourcelock.LeaderElectionRecordToLeaseSpec(&record)
	if ours {
		_, raw, err := observe(&lease.Spec)
		if err != nil {
			return err
		}
		l.hold.Started(time.Now(), raw, record.RenewTime.Time, acquiring)
	}
	client := l.sharder.cfg.Client.Leases(l.meta.Namespace)
	var written *coordinationv1.Lease
	var err error
	if create {
		written, err = client.Create(ctx, lease, metav1.CreateOptions{})
	} else {
		written, err = client.Update(ctx, lease, metav1.UpdateOptions{})
	}
	if err != nil {
		op := "update"
		if create {
			op = "create"
		}
		return l.refused(ctx, op, err)
	}
	l.keep(written)
	if ours {
		now := time.Now()
		tenure, change := l.hold.Succeeded(now)
		l.sharder.renewed(l, tenure, change, now)
	}
	return nil
}

// refused returns err, the failure of one of the election's requests (op "get", "create" or
// "update"), after reporting it (Sharder.failed) if the server refused the request for want of
// a permission or a credential: client-go's elector logs every failure and retries, but no
// retry fixes a Role without that verb on Leases, and the replica would otherwise hold nothing
// with nothing in its metrics to say why. Other failures (a server out of reach) are the
// election's business: a bucket lost shows in Metrics.HandedOver.
func (l *bucketLease) refused(ctx context.Context, op string, err error) error {
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		l.sharder.failed(ctx, op, l.Describe(), err)
	}
	return err
}

// keep notes lease as the last read or written.
func (l *bucketLease) keep(lease *coordinationv1.Lease) {
	l.lease = lease
	l.requester = lease.Annotations[annotationRequest]
}

// claim reports whether the campaign may acquire the bucket now (see timing.Restraint), and if
// so counts the bucket among those this replica acquires (Sharder.claimed), fresh if it was
// not counted yet: the write that acquires it unclaims a fresh claim if it fails. The
// campaigns of a replica decide one at a time, each seeing the others' claims, so that a
// replica does not race itself past its share while its acquisitions are on their way.
func (l *bucketLease) claim() (ok, fresh bool) {
	requested := l.requester != "" && l.requester != l.Identity()
	s := l.sharder
	s.mu.Lock()
	defer s.mu.Unlock()
	others := 0
	for b, claimed := range s.claimed {
		if claimed && b != l.bucket {
			others++
		}
	}
	if !l.restraint.Allows(time.Now(), l.raw, requested, others, int(s.share.Load()), s.times.Grace()) {
		return false, false
	}
	fresh = !s.claimed[l.bucket]
	s.claimed[l.bucket] = true
	return true, fresh
}

// release empties the Lease's holder if this replica still holds it, so that another replica
// takes it after one second instead of LeaseDuration; client-go's elector writes the same
// record when it releases. A hand-over request stays, so that the others leave the bucket to
// the requester. Call it only once the elector has stopped and the bucket is drained. A
// conflict (the request itself may have been written between the read and the write) reads
// the Lease again, up to five times; without that, the bucket would wait out LeaseDuration
// with nobody processing it. It returns the error of the request that failed, if the Lease
// was not released.
func (l *bucketLease) release(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { return l.releaseOnce(ctx) })
}

// releaseOnce reads the Lease and releases it if this replica still holds it.
func (l *bucketLease) releaseOnce(ctx context.Context) error {
	client := l.sharder.cfg.Client.Leases(l.meta.Namespace)
	current, err := client.Get(ctx, l.meta.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if holder(current) != l.Identity() {
		return nil // taken meanwhile: nothing to release
	}
	transitions := int32(0)
	if current.Spec.LeaseTransitions != nil {
		transitions = *current.Spec.LeaseTransitions
	}
	now := metav1.NewTime(time.Now())
	current.Spec = resourcelock.LeaderElectionRecordToLeaseSpec(&resourcelock.LeaderElectionRecord{
		LeaseDurationSeconds: 1,
		AcquireTime:          now,
		RenewTime:            now,
		LeaderTransitions:    int(transitions),
	})
	_, err = client.Update(ctx, current, metav1.UpdateOptions{})
	return err
}

// observe returns the record of a Lease's spec and its JSON, which client-go's elector compares
// to tell whether the Lease changed (its LeaseLock.Get computes it so).
func observe(spec *coordinationv1.LeaseSpec) (*resourcelock.LeaderElectionRecord, []byte, error) {
	record := resourcelock.LeaseSpecToLeaderElectionRecord(spec)
	raw, err := json.Marshal(*record)
	return record, raw, err
}

// holder returns the Lease's holderIdentity, or "".
func holder(lease *coordinationv1.Lease) string {
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}
