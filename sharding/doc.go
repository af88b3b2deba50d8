// Package sharding lets N replicas of a controller share its keys through Kubernetes Leases,
// elected with client-go's leader election (k8s.io/client-go/tools/leaderelection).
//
// The keys are split into Config.Buckets buckets by a hash of the key ([BucketOf]). Each
// bucket is a Lease, "<Name>-<bucket>", and each replica's [Sharder] runs one client-go
// LeaderElector per bucket. A [Queue] wraps any rate-limiting queue of package
// github.com/actorqueue/workqueue and processes only the keys of the buckets this replica
// holds: it drops the others' keys at Add, enqueues a bucket's keys (QueueConfig.Keys) when
// it acquires the bucket, and stops handing a bucket's keys out the moment it gives the bucket
// up, then waits for those in processing. Only the queues' public API is used.
//
// # The guarantee
//
//  1. No key is in processing on two replicas at once: through joins, graceful exits, crashes
//     (a replica stops renewing), and a replica cut off from the API server.
//  2. Every key added is processed by some replica: a change that reaches a replica not
//     holding its bucket is dropped there, and the replica that holds it, or next acquires
//     it, has it (its own informer told it, or Keys lists it at acquisition).
//
// Both rest on client-go's election and on the assumptions below. Like leader election, this
// is not fencing: a replica that is paused (a stopped VM, a long GC pause, a stuck syscall)
// for longer than the hold window can act on a bucket another replica has taken.
//
// # Timing
//
// Let S be the start of this replica's last successful write of a bucket's Lease naming it the
// holder (a renewal). The server applied the write after S, and another replica acquires the
// bucket only once LeaseDuration has passed, on its own clock, since it last saw the Lease
// change, which it cannot have seen before the write. So, as long as no clock runs more than
// 1+MaxClockDrift times as fast as another, this replica may act on the bucket until
//
//	S + LeaseDuration/(1+MaxClockDrift)     (the hold window)
//
// and a Queue hands out no key of the bucket after it, whatever the elector reports. The
// elector itself gives the bucket up when a renewal has kept failing for RenewDeadline, which
// starts a RetryPeriod after the last successful renewal returned; so once it reports the loss,
// at least
//
//	LeaseDuration/(1+MaxClockDrift) − RenewDeadline − RetryPeriod   ([Config.DrainBudget])
//
// remains (minus the latency of that last renewal) for the bucket's reconciles to finish: 1.6 s
// with client-go's defaults of 15 s, 10 s and 2 s and a drift of 0.1. Raise LeaseDuration
// relative to RenewDeadline for more. New panics if the budget is not positive.
//
// A queue cannot stop a reconcile. When a bucket is lost, its context ([Queue.Context]) is
// cancelled at once; a reconcile that honours it and returns within the budget is safe. A
// reconcile that outlives the hold window may overlap the next holder's processing of its key:
// the hand-over reports it (Handover.Overran) and the guarantee does not cover it.
//
// A replica that acquires a bucket hands its keys out at once: the previous holder stopped
// at the end of its hold window, which closes before LeaseDuration has passed on the new
// holder's clock, and the new holder waited that long (or the previous holder released the
// Lease, which it does only once drained).
//
// # Graceful hand-over
//
// When Run's context is done, or another replica asks for a bucket (see below), the replica
// stops handing the bucket's keys out, waits for those in processing while it keeps renewing
// (up to LeaseDuration), and only then stops its elector and releases the Lease, so that the
// next holder takes it within about a second. client-go's own ReleaseOnCancel is not used: on a
// renewal failure it releases the Lease before the reconciles have finished.
//
// # Balance
//
// Every RetryPeriod a replica lists the Leases and counts the live replicas. It does not
// acquire beyond its fair share, ⌈Buckets/replicas⌉, unless a bucket stays free for three
// RetryPeriods; and a replica two or more buckets short asks the busiest one for a bucket by
// setting the Lease's spec.preferredHolder, which the holder honours with a graceful
// hand-over. This only decides when to campaign: who holds a bucket is always decided by the
// election.
//
// # Server-side sharded list and watch
//
// [Hash] is the 64-bit FNV-1a hash that Kubernetes' sharded list and watch (KEP-5866, alpha in
// 1.36 behind the ShardedListAndWatch feature gate) computes, and bucket b is the hash range
// that [ShardSelector] names, so a replica can list and watch only its buckets' objects:
// hash keys with [HashNamespace] (field object.metadata.namespace) or hash the object's UID
// (object.metadata.uid).
package sharding
