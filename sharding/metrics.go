package sharding

import "time"

// Metrics receives a [Sharder]'s measurements and those of its queues. Its methods are called
// from many goroutines at once and must not block.
type Metrics interface {
	// BucketsHeld reports how many buckets the replica holds, after each change.
	BucketsHeld(n int)
	// KeyDropped counts one key a queue refused or discarded because its bucket is not held
	// by this replica.
	KeyDropped()
	// HandedOver reports one bucket this replica gave up, once its reconciles finished or its
	// deadline passed, and one tenure of a bucket interrupted while the replica holds it
	// (Cause Interrupted).
	HandedOver(h Handover)
}

// FailureMetrics is an optional extension of [Metrics]: a Metrics that also implements it
// receives the failures of the Lease requests the sharder makes besides the elections' own,
// and those of the elections' own that the server refused for want of a permission or a
// credential, which it also logs (at error level, naming the op and the Lease). A conflict,
// the normal end of a request that raced another, is not a failure.
type FailureMetrics interface {
	// RequestFailed reports one failed request: op is "list" (the balancing's look at the
	// Leases), "ask" (asking another replica for a bucket), "release" (giving a bucket
	// back after a graceful hand-over; the others then wait LeaseDuration for it),
	// "prepare" (a BucketWatcher failed to cache an acquired bucket's objects, which this
	// replica then gave back), or "get", "create" or "update" (a request of a bucket's
	// election that the server refused as Forbidden or Unauthorized: the replica's Role
	// lacks that verb on Leases, or its credential is not accepted; the elector retries it
	// every RetryPeriod, and each refusal is reported).
	RequestFailed(op string, err error)
}

// Handover describes one bucket a replica gave up, or one interruption of its hold.
type Handover struct {
	// Bucket is the bucket given up.
	Bucket int
	// Cause says why.
	Cause Cause
	// Drain is the time from the moment the replica stopped handing the bucket's keys out to
	// the moment its last reconcile finished, or to the deadline. For an interruption, it is
	// how long the hold window had been closed when a renewal found the interruption (0 if it
	// had not).
	Drain time.Duration
	// Overran is the number of the bucket's reconciles still running at the deadline: their
	// keys may then be processed on two replicas at once. It is 0 when the drain finished. For
	// an interruption, it is the number of reconciles handed out before it still running when
	// it was found: fenced (Held and Fence say no), but a write they make without checking may
	// meet another replica's. Each reconcile is counted at most once.
	Overran int
}

// Cause is why a replica gave a bucket up.
type Cause int

const (
	// Lost: client-go's elector failed to renew the Lease within RenewDeadline, typically
	// because the API server was unreachable. The bucket's context is cancelled at once and
	// the drain is bounded by the hold window.
	Lost Cause = iota
	// Released: the replica is shutting down and gave the bucket back after draining it; the
	// Lease was released so that another replica takes it without waiting out LeaseDuration.
	Released
	// Expired: a graceful hand-over gave up waiting for the bucket's reconciles after
	// LeaseDuration; the replica stopped renewing the Lease without releasing it, cancelled the
	// bucket's context, and waited as for a lost bucket.
	Expired
	// Interrupted: the bucket is still held, but its tenure was interrupted: a renewal
	// succeeded only after the hold window had closed (an answer that came late, a process
	// paused), or client-go's elector acquired the Lease again, within its renew loop, after
	// another replica had held or released it. The reconciles handed out before are fenced for
	// good (their contexts end; Held and Fence say no), and their keys are handed out again.
	Interrupted
)

// String returns "lost", "released", "expired" or "interrupted".
func (c Cause) String() string {
	switch c {
	case Lost:
		return "lost"
	case Released:
		return "released"
	case Expired:
		return "expired"
	case Interrupted:
		return "interrupted"
	}
	return "unknown"
}

// noMetrics is the Metrics of a Config without one.
type noMetrics struct{}

func (noMetrics) BucketsHeld(int)     {}
func (noMetrics) KeyDropped()         {}
func (noMetrics) HandedOver(Handover) {}
