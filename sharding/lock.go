package sharding

import (
	"context"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// lock is client-go's LeaseLock for one bucket that also remembers when the last write naming
// this replica the holder began. The server applied that write after it began, and other
// replicas wait LeaseDuration from when they saw it, so this replica may act on the bucket
// until holdWindow after that moment (see the package documentation).
type lock struct {
	*resourcelock.LeaseLock
	renewed atomic.Pointer[time.Time] // nil until the first successful write naming us
}

var _ resourcelock.Interface = (*lock)(nil)

// Create creates the Lease and notes when the write began if it names us the holder.
func (l *lock) Create(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	start := time.Now()
	err := l.LeaseLock.Create(ctx, record)
	l.noteWrite(start, record, err)
	return err
}

// Update updates the Lease and notes when the write began if it names us the holder.
func (l *lock) Update(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	start := time.Now()
	err := l.LeaseLock.Update(ctx, record)
	l.noteWrite(start, record, err)
	return err
}

func (l *lock) noteWrite(start time.Time, record resourcelock.LeaderElectionRecord, err error) {
	if err == nil && record.HolderIdentity == l.Identity() {
		l.renewed.Store(&start)
	}
}

// validUntil is the instant until which this replica may act on the bucket, or the zero time
// if it never held it.
func (l *lock) validUntil(window time.Duration) time.Time {
	start := l.renewed.Load()
	if start == nil {
		return time.Time{}
	}
	return start.Add(window)
}

// release empties the Lease's holder if this replica still holds it, so that another replica
// takes it after one second instead of LeaseDuration; client-go's elector writes the same
// record when it releases. Call it only once the elector has stopped and the bucket is
// drained. It reports whether the Lease was released.
func (l *lock) release(ctx context.Context) bool {
	current, _, err := l.Get(ctx)
	if err != nil || current.HolderIdentity != l.Identity() {
		return false
	}
	now := metav1.NewTime(time.Now())
	return l.LeaseLock.Update(ctx, resourcelock.LeaderElectionRecord{
		LeaseDurationSeconds: 1,
		AcquireTime:          now,
		RenewTime:            now,
		LeaderTransitions:    current.LeaderTransitions,
	}) == nil
}
