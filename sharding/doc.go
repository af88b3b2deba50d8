// Package sharding lets N replicas of a controller share its keys through Kubernetes Leases,
// elected with client-go's leader election (k8s.io/client-go/tools/leaderelection).
//
// The keys are split into Config.Buckets buckets by a hash of the key ([BucketOf]). Each
// bucket is a Lease, "<Name>-<bucket>", and each replica's [Sharder] runs one client-go
// LeaderElector per bucket. A [Queue] wraps any rate-limiting queue of package
// github.com/actorqueue/workqueue and processes only the keys of the buckets this replica
// holds: it drops the others' keys at Add, enqueues a bucket's keys (QueueConfig.Keys) when
// it acquires the bucket, hands each key out with a context that ends when its reconcile must
// begin to stop, stops handing a bucket's keys out the moment it gives the bucket up, and
// then waits for those in processing. Only the queues' public API is used. Package crshard
// does the same for controller-runtime controllers.
//
// # The guarantee
//
//  1. No key is processed on two replicas at once: a reconcile of a key on one replica, from
//     the Get that handed the key out to its last write, does not overlap another replica's.
//     This holds through joins, graceful exits, crashes (a replica stops renewing), a replica
//     cut off from the API server, late answers, and process pauses.
//  2. Every key added is processed by some replica: a change that reaches a replica not
//     holding its bucket is dropped there, and the replica that holds it, or next acquires
//     it, has it (its own informer told it, or Keys lists it at acquisition). A key of a held
//     bucket is never dropped, even while the bucket's renewals are late.
//
// # Assumptions
//
// Both rest on client-go's election (v0.37: its electors compare Lease records as described
// under Timing; the API server applies Lease updates only at the resourceVersion read, as
// every kube-apiserver does) and on these assumptions, which no Lease can remove:
//
//   - Clock rates. While any interval of real time passes, no replica's monotonic clock
//     advances more than 1+MaxClockDrift times as much as another's. Clock offsets do not
//     matter: a replica only measures durations on its own clock, and wall-clock times in the
//     Leases are compared, never trusted (nor may they go backwards: a replica whose wall
//     clock steps back keeps writing its last renewTime).
//   - Reconciles honour their context. Each write a reconcile makes takes effect (is applied
//     or fails) before the end of the bucket's hold window, in real time: the instant
//     [Queue.Held] and [Fence] return. The way to meet it: right before each write, check
//     Held or Fence and bound the write's latency by what is left; and stop when the context
//     ([Queue.Context]) ends, which leaves [Config.DrainBudget] for the writes on their way and
//     for returning. A check of ctx.Err() alone is not enough after a pause: the timer that
//     ends the context runs when the process resumes, possibly after the check.
//   - Pauses. A process pause (SIGSTOP, a GC pause, a stuck syscall, a stopped VM whose
//     clock catches up when it resumes) of any length is harmless wherever it falls except
//     between a reconcile's last check and its write taking effect: that interval counts
//     against what the check left. Everywhere else, the monotonic clock has counted the
//     pause, and every decision that keeps replicas apart reads it (none waits for a timer or
//     for the elector's report). A machine that suspends (Linux's CLOCK_MONOTONIC stops
//     during system suspend) or a VM whose clock does not catch up is a clock running slow:
//     outside the clock-rate assumption.
//
// A reconcile that breaks them (a write that takes effect after the end of the hold window)
// may overlap the next holder's processing of its key. A hand-over that times out reports the
// keys still in processing (Handover.Overran): reconciles that ran on for more than the drain
// budget after their context ended, or that a pause froze.
//
// # Timing
//
// client-go's elector takes a bucket over only once LeaseDuration has passed, on its clock,
// since it last saw the Lease's record change, comparing the record's JSON, whose times have
// whole seconds. So two writes within one second are one to the others, and they count from
// when they first saw the record, which is after the first write that produced it began. Let
// S be the start of that write (the first of this replica's consecutive writes of the record
// now stored, attempts whose answer was lost included). This replica may act on the bucket
// until
//
//	S + LeaseDuration/(1+MaxClockDrift)     (the end of the hold window)
//
// A key's context ends at
//
//	end of the hold window − DrainBudget  =  S + RenewDeadline + RetryPeriod
//
// where DrainBudget = LeaseDuration/(1+MaxClockDrift) − RenewDeadline − RetryPeriod: 1.6 s
// with client-go's defaults of 15 s, 10 s and 2 s and a drift of 0.1. New panics if it is
// not positive. That is when client-go's elector reports the loss when answers are prompt;
// when they are late, the context ends first, whatever the elector reports. Every renewal
// that changes the record moves S, and so the end of the context of every key in processing:
// the context has no fixed deadline, and a reconcile of any length runs to its end while the
// renewals keep up. They keep up while the record changes at least every RenewDeadline +
// RetryPeriod, answer included: with RetryPeriod under a second the record changes once a
// second (by the first renewal of each second of renewTime), so RenewDeadline must exceed
// 1 s by two round trips to the API server, or the contexts end now and then on a healthy
// replica (the keys are then retried, below). New refuses a RenewDeadline of a second or less
// with a RetryPeriod under a second, where no round trip is short enough; 1.2 s, with 2 s
// Leases and 250 ms retries, leaves round trips of up to 100 ms. With client-go's defaults
// every renewal changes the record.
//
// When the renewals are late, so that the keys' contexts end while the bucket is still held
// (the tenure has lapsed), the Queue sets the bucket's keys aside instead of handing them out,
// enqueues again at Done each key whose reconcile was cut short, and enqueues them all once a
// renewal succeeds (or drops them if the bucket is lost; its next holder lists them).
//
// A replica that acquires a bucket hands its keys out at once: the previous holder stopped
// at the end of its hold window, which closes before LeaseDuration has passed on the new
// holder's clock, and the new holder waited that long (or the previous holder released the
// Lease, which it does only once drained).
//
// Every rule of this section, and of the next two, lives in one place without I/O, package
// internal/timing, where step tables at fixed instants test it: the durations (Durations),
// the hold window and the tenure rule (Hold), whether a key may still be acted on and when its
// context ends (Tenure), whether to acquire (Restraint), who is live and whom to ask for a
// bucket (Census). The rest of this package is the shell: electors, Lease requests, queues.
//
// # Tenures
//
// A tenure is an unbroken hold of a bucket by this replica. The invariant: a key's hold
// belongs to the tenure in which it was handed out, and a tenure never spans an interval in
// which this replica's hold window was closed or another replica could have held the bucket.
// So a write of the Lease that succeeds begins a new tenure when it acquires the Lease (the
// record it replaces names another holder or none), or when its answer comes once the hold
// window had closed on this replica's clock; the keys of the tenure before are then fenced
// for good ([Queue.Held] and [Fence] say no, their contexts end), the interruption is reported
// (Metrics.HandedOver, Cause Interrupted), and, the bucket being held still, they are handed
// out again under the new tenure once done. Every path that keeps a hold going, and why it
// is safe:
//
//   - A renewal answered late, within the window: it replaced this replica's own record, at
//     the resourceVersion it read or wrote, so no other holder came in between; the window
//     moves only if the record changed, from when the first write of it began.
//   - A renewal answered after the window closed (a process paused with the answer on its
//     way): a new tenure, whose window, counted from that write's start, may have closed
//     already; it then hands nothing out until a later renewal begins one more.
//   - A lapse (the keys' end passed, the window still open) and its recovery: the keys'
//     contexts ended at the lapse, the keys were set aside, and a renewal answered before the
//     window closed continues the tenure, as above; one answered after begins a new one.
//   - client-go's elector acquiring the Lease inside its own renew loop, without a new
//     OnStartedLeading (another replica held the bucket and released it, or it expired):
//     the record replaced names another holder or none, so a new tenure, which the sharder
//     learns from the write itself, not from the elector.
//   - A loss, then a new campaign: the old tenure's window stays where its last renewal left
//     it (the elector writes nothing more), the keys' contexts end, and the replica waits for
//     them until the window closes; the next campaign's first write begins a new tenure, so a
//     key of the old one never becomes held again.
//   - A release that meets a conflict: it runs once the elector has stopped and the bucket is
//     drained, reads the Lease again and empties it only if it still names this replica; it
//     writes no record naming this replica, so it extends nothing.
//   - Re-acquisition after a hand-over request: the campaign that handed the bucket back has
//     ended; the replica stays out of the election for LeaseDuration, and acquires the bucket,
//     if at all, in a new campaign, under a new tenure.
//
// # Fencing
//
// Neither the context nor the Lease can stop a write already on its way. What a reconcile has
// instead: its context, whose end tells it to begin to stop, and [Queue.Held] (or [Fence], on
// the context), which reads the clock and returns the end of the hold window, moved by every
// renewal of the key's tenure since (and says no once another tenure has begun): a write that
// takes effect before it cannot meet another replica's processing of the key. Both are this replica's bounds, from its own clock and
// the assumptions above; they cannot stop a write sent in time that the API server applies
// late (bound the write's latency by what is left), and they do not fence the objects the
// reconcile writes (no Lease can: for that, make the writes conditional on the object's
// resourceVersion).
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
// RetryPeriods; and while every bucket is held, a replica two or more buckets short asks the
// busiest one for a bucket by naming itself in the Lease's annotation
// sharding.actorqueue.io/requested-by, which the holder honours with a graceful hand-over.
// Each replica announces itself with a member Lease ("<Name>-r<hash of Identity>"), renewed
// every RetryPeriod and deleted when it leaves, and campaigns only a RetryPeriod after it
// started: replicas that start within a RetryPeriod of each other count each other before
// any acquires, and share the buckets without a hand-over. (spec.preferredHolder would say the same, but
// kube-apiserver drops it unless the CoordinatedLeaderElection feature gate is on, and refuses
// it without spec.strategy when it is.) A request that fails other than by a conflict is
// logged and reported to [FailureMetrics]. This only decides when to campaign: who holds a
// bucket is always decided by the election.
//
// # Server-side sharded list and watch
//
// [Hash] is the 64-bit FNV-1a hash that Kubernetes' sharded list and watch (KEP-5866, alpha in
// 1.36 behind the ShardedListAndWatch feature gate) computes, and bucket b is the hash range
// that [ShardSelector] names, so a replica can list and watch only its buckets' objects:
// hash keys with [HashNamespace] (field object.metadata.namespace) or hash the object's UID
// (object.metadata.uid). Package shardcache does it: its informers watch the held buckets
// only, and route each key to its object's bucket.
//
// # Watchers
//
// A [BucketWatcher] ([Sharder.Watch]) caches the objects of the buckets this replica holds.
// When the elector reports a bucket won, the bucket's election goroutine calls every
// watcher's Prepare and waits (the elector keeps renewing meanwhile) before the holding
// begins: the queues accept and list the bucket's keys only once its objects are cached, so
// no reconcile reads a cache that lacks its object. A preparation that fails gives the
// bucket back at once. After a hand-over, once the bucket has drained or its hold window has
// closed, every watcher's Release frees the bucket's objects. That is the whole seam between
// the timing of the elections and the informers: two calls in the election of a bucket
// (campaign.go: prepare before the holding, released after each way a holding ends).
package sharding
