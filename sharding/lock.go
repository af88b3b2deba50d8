package sharding

import (
	"bytes"
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
	sharder *Sharder
	bucket  int
	renewed atomic.Pointer[time.Time] // nil until the first successful write naming us
	// Only the elector's goroutine uses these. seen is the record the last Get read; refused
	// is when the lock first refused to acquire the bucket beyond the fair share while the
	// Lease held the record refusedAt.
	seen, refusedAt []byte
	refused         time.Time
	// preferred is spec.preferredHolder as the last Get read it: a replica that asked for the
	// bucket (see balance.go).
	preferred string
}

var _ resourcelock.Interface = (*lock)(nil)

// Get reads the Lease, and passes on to the sharder a request by another replica to hand the
// bucket over (spec.preferredHolder) while this one holds it.
func (l *lock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	record, raw, err := l.LeaseLock.Get(ctx)
	if err == nil {
		l.seen, l.preferred = raw, record.PreferredHolder
		if record.HolderIdentity == l.Identity() && l.preferred != "" && l.preferred != l.Identity() {
			l.sharder.requestHandover(l.bucket)
		}
	}
	return record, raw, err
}

// Create creates the Lease and notes when the write began if it names us the holder. Beyond
// the fair share, it refuses (see balance.go).
func (l *lock) Create(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	if !l.mayAcquire() {
		return errAtShare
	}
	start := time.Now()
	err := l.LeaseLock.Create(ctx, record)
	l.noteWrite(start, record, err)
	return err
}

// Update updates the Lease and notes when the write began if it names us the holder. An update
// that would acquire the bucket beyond the fair share is refused (see balance.go).
func (l *lock) Update(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	if l.renewed.Load() == nil && !l.mayAcquire() {
		return errAtShare
	}
	start := time.Now()
	err := l.LeaseLock.Update(ctx, record)
	l.noteWrite(start, record, err)
	return err
}

// mayAcquire reports whether the sharder may acquire the bucket now: below the fair share and
// not handed to another replica by name, or once the Lease has stayed free and unchanged for
// the grace period since the first refusal.
func (l *lock) mayAcquire() bool {
	if l.refused.IsZero() || !bytes.Equal(l.seen, l.refusedAt) {
		l.refused, l.refusedAt = time.Time{}, l.seen // the Lease changed: the wait starts again
	}
	handedToAnother := l.preferred != "" && l.preferred != l.Identity()
	if l.sharder.mayAcquire(l.refused, handedToAnother) {
		return true
	}
	if l.refused.IsZero() {
		l.refused = time.Now()
	}
	return false
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
// record when it releases. It names to as the preferred holder, if not empty, for the other
// replicas to leave the bucket to it. Call it only once the elector has stopped and the bucket
// is drained. It reports whether the Lease was released.
func (l *lock) release(ctx context.Context, to string) bool {
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
		PreferredHolder:      to,
	}) == nil
}
