package sharding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/retry"
)

// lock is the resource lock of one term of one bucket's election: the bucket's Lease, read and
// written as client-go's LeaseLock does (the same record in the same fields, the same
// optimistic concurrency on resourceVersion), and in addition it
//
//   - tracks the hold window: until when this replica may act on the bucket (see observation);
//   - passes on hand-over requests, which other replicas write into an annotation of the
//     Lease (see balance.go), and clears them when it acquires the Lease;
//   - refuses to acquire the bucket beyond the fair share (see balance.go).
//
// The elector calls Get, Create and Update from its goroutine, one at a time; release is
// called once the elector has stopped. Only holdUntil is read from other goroutines.
type lock struct {
	sharder *Sharder
	bucket  int
	meta    metav1.ObjectMeta // namespace and name of the Lease
	seen    *observation      // the bucket's, shared by its terms

	lease     *coordinationv1.Lease // as last read or written
	requester string                // the replica asking for the bucket, from lease's annotation
	raw       []byte                // the record of lease, as the elector compares records
	// refused is when the lock first refused to acquire the bucket beyond the fair share while
	// the Lease held the record refusedAt.
	refused   time.Time
	refusedAt []byte

	until atomic.Pointer[time.Time] // the end of the hold window; nil until a write naming us succeeded
}

// observation is what one bucket's locks remember, across terms, of the records they wrote
// naming this replica, so that the hold window is measured from what the others can see.
//
// client-go's elector restarts its countdown to a take-over only when the record it reads
// differs from the one it read before, comparing the JSON of resourcelock.LeaderElectionRecord,
// whose times have whole seconds. Two writes within one second of the holder's wall clock give
// the same record, so the later one restarts no countdown: the others count from when they first
// saw the record, which is after the first write that produced it began, not the last. The hold
// window is therefore measured from the start of the first of the consecutive writes that
// produced the record now stored. Consecutive is enough because the lock never lets renewTime go
// backwards (lastRenew), so a record, once replaced by a later one of ours, never comes back.
// Writes whose outcome is unknown count: the server may have applied them.
type observation struct {
	record    []byte    // the record of our last write attempt naming us
	since     time.Time // when the first attempt producing record began
	lastRenew time.Time // the renewTime of that attempt, wall clock only
}

// annotationRequest names, on a Lease, the replica that asked its holder for the bucket; it
// stays when the holder releases the Lease, so that the others leave the bucket to the
// requester, and is removed by whoever acquires the Lease. An annotation, unlike
// spec.preferredHolder, is stored by every API server (see balance.go).
const annotationRequest = "sharding.actorqueue.io/requested-by"

var _ resourcelock.Interface = (*lock)(nil)

func (l *lock) Identity() string   { return l.sharder.cfg.Identity }
func (l *lock) Describe() string   { return l.meta.Namespace + "/" + l.meta.Name }
func (l *lock) RecordEvent(string) {}

// Get reads the Lease, and passes on to the sharder a request by another replica to hand the
// bucket over while this one holds it.
func (l *lock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	lease, err := l.sharder.cfg.Client.Leases(l.meta.Namespace).Get(ctx, l.meta.Name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
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
func (l *lock) Create(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	if !l.mayAcquire() {
		return errAtShare
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
		Namespace: l.meta.Namespace, Name: l.meta.Name, Labels: map[string]string{labelName: l.sharder.cfg.Name},
	}}
	return l.write(ctx, lease, record, true)
}

// Update writes record into the Lease as last read or written. An update that would acquire
// the bucket beyond the fair share is refused (see balance.go); one that acquires it removes a
// hand-over request, which it grants or overrides.
func (l *lock) Update(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	if l.lease == nil {
		return errors.New("sharding: Lease not read before update")
	}
	lease := l.lease.DeepCopy()
	if holder(lease) != l.Identity() {
		if !l.mayAcquire() {
			return errAtShare
		}
		delete(lease.Annotations, annotationRequest)
	}
	if lease.Labels == nil {
		lease.Labels = make(map[string]string)
	}
	lease.Labels[labelName] = l.sharder.cfg.Name
	return l.write(ctx, lease, record, false)
}

// write stores lease with record as its spec, and extends the hold window when the write
// names this replica and succeeds.
func (l *lock) write(ctx context.Context, lease *coordinationv1.Lease, record resourcelock.LeaderElectionRecord, create bool) error {
	ours := record.HolderIdentity == l.Identity()
	if ours {
		if wall := record.RenewTime.Round(0); wall.Before(l.seen.lastRenew) {
			record.RenewTime = metav1.NewTime(l.seen.lastRenew) // the wall clock stepped back
		}
	}
	lease.Spec = resourcelock.LeaderElectionRecordToLeaseSpec(&record)
	start := time.Now()
	if ours {
		_, raw, err := observe(&lease.Spec)
		if err != nil {
			return err
		}
		if !bytes.Equal(raw, l.seen.record) {
			l.seen.record, l.seen.since = raw, start
		}
		l.seen.lastRenew = record.RenewTime.Round(0)
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
		return err
	}
	l.keep(written)
	if ours {
		l.extend(l.seen.since.Add(l.sharder.cfg.holdWindow()))
	}
	return nil
}

// keep notes lease as the last read or written.
func (l *lock) keep(lease *coordinationv1.Lease) {
	l.lease = lease
	l.requester = lease.Annotations[annotationRequest]
}

// extend moves the end of the hold window to until if that is later, and lets the queues
// resume a bucket whose keys' deadline had passed.
func (l *lock) extend(until time.Time) {
	if old := l.until.Load(); old != nil && !until.After(*old) {
		return
	}
	l.until.Store(&until)
	l.sharder.extended(l)
}

// holdUntil is the end of the hold window: another replica may acquire the bucket from then
// on. It is the zero time until a write naming this replica has succeeded.
func (l *lock) holdUntil() time.Time {
	if until := l.until.Load(); until != nil {
		return *until
	}
	return time.Time{}
}

// mayAcquire reports whether the sharder may acquire the bucket now: below the fair share and
// not requested by another replica, or once the Lease has stayed free and unchanged for the
// grace period since the first refusal.
func (l *lock) mayAcquire() bool {
	if l.refused.IsZero() || !bytes.Equal(l.raw, l.refusedAt) {
		l.refused, l.refusedAt = time.Time{}, l.raw // the Lease changed: the wait starts again
	}
	requested := l.requester != "" && l.requester != l.Identity()
	if l.sharder.mayAcquire(l.refused, requested) {
		return true
	}
	if l.refused.IsZero() {
		l.refused = time.Now()
	}
	return false
}

// release empties the Lease's holder if this replica still holds it, so that another replica
// takes it after one second instead of LeaseDuration; client-go's elector writes the same
// record when it releases. A hand-over request stays, so that the others leave the bucket to
// the requester. Call it only once the elector has stopped and the bucket is drained. A
// conflict (the request itself may have been written between the read and the write) reads
// the Lease again, up to five times; without that, the bucket would wait out LeaseDuration
// with nobody processing it. It returns the error of the request that failed, if the Lease
// was not released.
func (l *lock) release(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { return l.releaseOnce(ctx) })
}

// releaseOnce reads the Lease and releases it if this replica still holds it.
func (l *lock) releaseOnce(ctx context.Context) error {
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
