package e2e

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/faultproxy"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// replicaKinds are the wirings of the replica program that every scenario runs with (its
// -kind flag): sharding.Wrap around a queue by hand, and a sharded controller-runtime
// controller through package crshard.
var replicaKinds = []string{"queue", "controller-runtime"}

// balanceRetries is N in the balance promise these tests hold the sharder to: after the last
// replica joins, every bucket is held and each replica holds within one of its fair share
// within N RetryPeriods (5 s with 250 ms retries). A hand-over asked for by a joiner takes
// about three RetryPeriods (the holder sees the request at its next renewal, drains, releases;
// the joiner acquires at its next attempt); N leaves room for two rounds of them and a slow
// machine.
const balanceRetries = 20

// updatePeriod is how often the harness changes one of the 48 ConfigMaps while a scenario
// runs: 40 changes a second, each key about every 1.2 s.
const updatePeriod = 25 * time.Millisecond

// scenario is one run of replicas under one fault.
type scenario struct {
	name   string
	timing timing
	args   []string // extra replica flags
	run    func(h *harness)
	// gateOff runs the scenario on the API server with ShardedListAndWatch off.
	gateOff bool
}

// parallel reports whether the scenario runs side by side with the other parallel ones of its
// kind, after the others: those with client-go's durations spend most of their time waiting
// out 15-second Leases, while the sub-second ones test timing that a busy machine would
// disturb, and run one at a time for each kind (so two at once: see TestSharding).
func (sc scenario) parallel() bool { return sc.timing.lease >= 10*time.Second }

var scenarios = []scenario{
	{name: "control/unsharded", timing: fast, args: []string{"-unsharded"}, run: controlUnsharded},
	{name: "steady", timing: fast, run: steady},
	{name: "joins", timing: fast, run: joins},
	{name: "graceful-exit", timing: fast, run: gracefulExit},
	{name: "kill-9", timing: fast, run: kill9},
	{name: "pause", timing: fast, args: []string{"-work", "1s"}, run: pauses},
	{name: "pause-after-loss", timing: fast, run: pauseAfterLoss},
	{name: "requests-lost", timing: fast, run: requestsLost},
	{name: "partition", timing: fast, run: partition},
	{name: "slow-answers", timing: fast, args: []string{"-work", "1s"}, run: slowAnswers},
	{name: "slow-then-recover", timing: fast, run: slowThenRecover},
	{name: "frozen-answer", timing: longRenew, run: frozenAnswer},
	{name: "request-on-reacquired-lease", timing: fast, run: requestOnReacquiredLease},
	{name: "release-conflict", timing: defaults, run: releaseConflict},
	{name: "graceful-exit", timing: defaults, run: gracefulExit},
	{name: "kill-9", timing: defaults, run: kill9},
	{name: "slow-answers", timing: defaults, args: []string{"-work", "5s"}, run: slowAnswers},
	// The watch sharded by UID (package shardcache): each replica caches only its buckets'
	// ConfigMaps, and a bucket's keys are handed out once its watch has synced.
	{name: "watch/joins", timing: fast, args: []string{"-watch=uid"}, run: joins},
	{name: "watch/graceful-exit", timing: fast, args: []string{"-watch=uid"}, run: gracefulExit},
	{name: "watch/kill-9", timing: fast, args: []string{"-watch=uid"}, run: kill9},
	{name: "watch/pause", timing: fast, args: []string{"-watch=uid", "-work", "1s"}, run: pauses},
	{name: "watch/gate-off/kill-9", timing: fast, args: []string{"-watch=uid"}, run: kill9, gateOff: true},
}

// TestSharding runs every scenario with every kind of replica, as
// TestSharding/<kind>/<timing>/<scenario>: e.g. -run 'TestSharding/queue/2s-1.2s-250ms/kill-9$'.
// The kinds run side by side, each its sub-second scenarios one at a time and then its others
// at once (TestMain raises -test.parallel for them).
func TestSharding(t *testing.T) {
	for _, kind := range replicaKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			for _, sc := range scenarios {
				t.Run(sc.timing.slug()+"/"+sc.name, func(t *testing.T) {
					if sc.parallel() {
						t.Parallel()
					}
					args := append([]string{"-kind", kind}, sc.args...)
					var h *harness
					if sc.gateOff {
						h = newHarnessOn(t, needGateOff(t), sc.timing, args...)
					} else {
						h = newHarness(t, sc.timing, args...)
					}
					sc.run(h)
				})
			}
		})
	}
}

// slug is the timing's name as a test name element: "2s-1.2s-250ms".
func (tm timing) slug() string {
	return fmt.Sprintf("%v-%v-%v", tm.lease, tm.renew, tm.retry)
}

// startAll starts n replicas, r1 … rn, at once, and waits until they are ready and the
// buckets are all held, each by one.
func (h *harness) startAll(n int) []*proc {
	h.t.Helper()
	var ps []*proc
	for i := 1; i <= n; i++ {
		ps = append(ps, h.launch(fmt.Sprintf("r%d", i)))
	}
	h.awaitReady(ps...)
	h.waitFor("every bucket held by one replica", 3*h.tm.lease+10*time.Second, h.covered)
	return ps
}

// covered reports whether each bucket is held by exactly one live replica.
func (h *harness) covered() bool {
	held := h.heldBy()
	for b := range h.buckets {
		if len(held[b]) != 1 {
			return false
		}
	}
	return true
}

// busiest returns the live replica that holds the most buckets.
func (h *harness) busiest() *proc {
	var best string
	held := holdings(h.events, h.live(), record.Now())
	for _, name := range h.live() {
		if best == "" || len(held[name]) > len(held[best]) {
			best = name
		}
	}
	return h.procs[best]
}

// begin starts three replicas, waits until they hold every bucket and have balanced them,
// starts the changes and lets them run for warmup. It returns the busiest replica, the one a
// fault strikes. Every bucket held is not enough: the first replica to start takes them all,
// and while the others ask for their share it may have handed them all back before they take
// them, so that, with 15 s Leases, nobody held anything at the end of the warmup (twice in
// twelve runs of the suite, on a loaded machine).
func (h *harness) begin(warmup time.Duration) *proc {
	h.t.Helper()
	h.startAll(3)
	h.waitFor("the buckets balanced", 3*h.tm.lease+10*time.Second, func() bool {
		return balanced(holdings(h.events, h.live(), record.Now()), h.buckets)
	})
	h.updateEvery(updatePeriod)
	h.run(warmup)
	return h.busiest()
}

// heal restores victim's connection, without delay, and lets the scenario go on for 2 s.
func (h *harness) heal(victim *proc) {
	victim.proxy.SetDelay(0, 0)
	victim.proxy.Set(faultproxy.Open)
	h.run(2 * time.Second)
}

// run lets the scenario go on for d: the length of a phase, not a wait for a condition.
func (h *harness) run(d time.Duration) {
	deadline := time.Now().Add(d)
	h.await(d, func() bool { return !time.Now().Before(deadline) })
}

// controlUnsharded runs two replicas that each process every key, without a sharder: the
// checks must find overlaps, or they could not find them in the scenarios either.
func controlUnsharded(h *harness) {
	h.start("r1")
	h.start("r2")
	h.updateEvery(updatePeriod)
	h.run(3 * time.Second)
	h.stopUpdates()
	for _, name := range h.live() {
		h.leave(h.procs[name])
	}
	ivs, err := intervals(h.events, h.deaths)
	if err != nil {
		h.t.Fatal(err)
	}
	found := overlaps(ivs)
	if len(found) == 0 {
		h.t.Fatalf("two unsharded replicas made %d reconciles and the check found no overlap", len(ivs))
	}
	if keys := lost(h.events, h.final); len(keys) > 0 {
		h.t.Errorf("unsharded replicas lost %d keys: %v", len(keys), keys)
	}
	h.t.Logf("control: %d overlaps found among %d reconciles, as expected", len(found), len(ivs))
}

// steady starts three replicas together and checks that they balance. It counts the
// hand-overs they made meanwhile: since issue 44, none, where there were 12 to 17.
func steady(h *harness) {
	ps := h.startAll(3)
	h.updateEvery(updatePeriod)
	h.checkBalance(readyAt(h.events, ps[2].name))
	handovers := 0
	for _, e := range h.events {
		if e.Kind == record.HandedOver {
			handovers++
		}
	}
	figure(h.t, "hand-overs from the start to balance", "%d", handovers)
	h.run(3 * time.Second)
	h.finish()
}

// joins starts one replica, lets it take every bucket, then adds two: the buckets must spread.
func joins(h *harness) {
	h.start("r1")
	h.waitFor("r1 holds every bucket", 3*h.tm.lease+10*time.Second, h.covered)
	h.updateEvery(updatePeriod)
	h.run(time.Second)
	h.start("r2")
	last := h.start("r3")
	h.checkBalance(readyAt(h.events, last.name))
	h.run(2 * time.Second)
	h.finish()
}

// checkBalance waits for the live replicas to balance and checks that they did within
// balanceRetries RetryPeriods of since, by their records.
func (h *harness) checkBalance(since time.Duration) {
	h.t.Helper()
	limit := balanceRetries * h.tm.retry
	live := h.live()
	h.await(limit+2*time.Second, func() bool {
		_, ok := balancedSince(h.events, live, h.buckets, since)
		return ok
	})
	at, ok := balancedSince(h.events, live, h.buckets, since)
	if !ok || at-since > limit {
		h.t.Errorf("balance: %d replicas not within one bucket of their share of %d within %d RetryPeriods (%v) of the last join; holdings then: %v",
			len(live), h.buckets, balanceRetries, limit, holdings(h.events, live, since+limit))
		figure(h.t, "balance after the last join", "not within %v", limit)
		return
	}
	figure(h.t, "balance after the last join", "%v (%.1f RetryPeriods)", (at - since).Round(time.Millisecond), float64(at-since)/float64(h.tm.retry))
}

// readyAt returns when replica reported ready.
func readyAt(events []record.Event, replica string) time.Duration {
	for _, e := range events {
		if e.Kind == record.Ready && e.Replica == replica {
			return e.At
		}
	}
	return 0
}

// gracefulExit stops the busiest of three replicas with SIGTERM and measures how soon the
// others serve its buckets.
func gracefulExit(h *harness) {
	victim := h.begin(2 * time.Second)
	buckets := lastHeld(h.events, victim.name, record.Now())
	at := h.leave(victim)
	h.measureServed("graceful hand-over", victim.name, buckets, at, 2*h.tm.lease+10*time.Second)
	var drains []time.Duration
	for _, e := range h.events {
		if e.Kind == record.HandedOver && e.Replica == victim.name && e.Cause == "released" {
			drains = append(drains, e.Drain)
		}
	}
	if len(drains) > 0 {
		slices.Sort(drains)
		figure(h.t, "drain used per bucket", "median %v, most %v, of %d buckets (patience %v)",
			drains[len(drains)/2].Round(time.Millisecond), drains[len(drains)-1].Round(time.Millisecond), len(drains), h.tm.lease)
	}
	h.run(time.Second)
	h.finish()
}

// kill9 kills the busiest of three replicas with SIGKILL and measures how soon the others
// serve its buckets.
func kill9(h *harness) {
	victim := h.begin(2 * time.Second)
	buckets := lastHeld(h.events, victim.name, record.Now())
	at := h.kill(victim)
	h.measureServed("crash to served", victim.name, buckets, at, 3*h.tm.lease+10*time.Second)
	h.run(time.Second)
	h.finish()
}

// measureServed waits until replicas other than gone have reconciled a key of each of
// buckets since at, and records the time to the first and to the last.
func (h *harness) measureServed(what, gone string, buckets []int, at, limit time.Duration) {
	h.t.Helper()
	if len(buckets) == 0 {
		h.t.Fatalf("%s held no bucket", gone)
	}
	ok := h.await(limit, func() bool { return len(served(h.events, gone, buckets, h.buckets, at)) == len(buckets) })
	first := served(h.events, gone, buckets, h.buckets, at)
	if !ok {
		h.t.Errorf("%s: only %d of %s's %d buckets served by others within %v", what, len(first), gone, len(buckets), limit)
		return
	}
	var times []time.Duration
	for _, t := range first {
		times = append(times, t-at)
	}
	slices.Sort(times)
	figure(h.t, what+" (first bucket)", "%v", times[0].Round(time.Millisecond))
	figure(h.t, what+" (all "+fmt.Sprint(len(buckets))+" buckets)", "%v", times[len(times)-1].Round(time.Millisecond))
}

// pauses stops the busiest replica with SIGSTOP three times, each for 95% of the hold window:
// shorter than the window, so within the package's assumptions.
func pauses(h *harness) {
	h.begin(time.Second)
	pause := h.tm.window() * 95 / 100
	for range 3 {
		h.pause(h.busiest(), pause)
		h.run(2 * time.Second)
	}
	h.finish()
}

// pauseAfterLoss loses a replica's requests, so that its renewals fail while its watch still
// brings changes to reconcile, until it reports losing buckets; then it pauses it with
// SIGSTOP for half the hold window, while its reconciles of the lost buckets are returning.
func pauseAfterLoss(h *harness) {
	victim := h.begin(time.Second)
	before := len(lastHeld(h.events, victim.name, record.Now()))
	cutAt := record.Now()
	victim.proxy.Set(faultproxy.LoseRequests)
	h.waitFor(victim.name+" reports a loss", h.tm.lease+5*time.Second, func() bool {
		return len(lastHeld(h.events, victim.name, record.Now())) < before
	})
	h.pause(victim, h.tm.window()/2)
	h.t.Logf("%s's requests lost from %s, paused after its first loss", victim.name, h.at(cutAt))
	h.run(h.tm.lease)
	h.heal(victim)
	h.finish()
}

// requestsLost loses a replica's requests for longer than LeaseDuration, while the answers
// and watch events already on their way still arrive, and then restores them.
func requestsLost(h *harness) {
	h.cutOff(faultproxy.LoseRequests)
}

// partition silences a replica's connection both ways for longer than LeaseDuration, then
// reconnects it.
func partition(h *harness) {
	h.cutOff(faultproxy.Silent)
}

// cutOff puts the busiest replica's proxy in state for LeaseDuration and a second, then opens
// it again.
func (h *harness) cutOff(state faultproxy.State) {
	victim := h.begin(time.Second)
	victim.proxy.Set(state)
	h.run(h.tm.lease + time.Second)
	h.heal(victim)
	h.finish()
}

// slowAnswers delays the API server's answers to a replica by 90% of RenewDeadline, more
// than the drain budget, so that its renewals succeed late, and then loses its requests:
// the answers on their way still arrive, so its last renewal succeeds, late.
func slowAnswers(h *harness) {
	victim := h.begin(time.Second)
	delay := h.tm.renew * 9 / 10
	victim.proxy.SetDelay(0, delay)
	h.t.Logf("%s's answers delayed by %v (drain budget %v, RenewDeadline %v)", victim.name, delay, h.tm.drainBudget(), h.tm.renew)
	h.run(delay + 2*h.tm.retry) // a renewal answered late, the next one on its way
	victim.proxy.Set(faultproxy.LoseRequests)
	h.run(h.tm.lease + h.tm.renew)
	h.heal(victim)
	h.finish()
}

// slowThenRecover delays a replica's answers by 85% of RenewDeadline, so that its renewals
// succeed but its hold window lapses between them, stops the changes while they are slow, and
// then lets it recover: every last change must still be reconciled.
func slowThenRecover(h *harness) {
	victim := h.begin(time.Second)
	victim.proxy.SetDelay(0, h.tm.renew*85/100)
	h.run(3 * time.Second)
	h.stopUpdates()
	h.run(2 * time.Second)
	victim.proxy.SetDelay(0, 0)
	h.finish()
}

// frozenAnswer is issue 42's scenario. r1, alone, holds every bucket; its reconciles stall
// right before their next check of Fence; its renewals' answers are held on their way, and it
// is stopped (SIGSTOP) with them in flight. r2 starts meanwhile and takes every bucket over.
// When r1 resumes, client-go may read the late answers as renewals (the answer and the
// request's deadline race), r1 asks r2 for half the buckets, and r2 hands them back, which
// r1's electors take within their renew loops. Once a bucket is r1's again, the stalled
// reconciles go on: each must find, by Fence alone, that its hold ended when r2 took the
// bucket. Before the fix, those of a bucket taken back within a renew loop wrote.
func frozenAnswer(h *harness) {
	r1 := h.start("r1")
	h.waitFor("r1 holds every bucket", 3*h.tm.lease+10*time.Second, h.covered)
	h.updateEvery(updatePeriod)
	h.run(time.Second)
	stalled := record.Now()
	h.stall(r1, true)
	h.run(h.tm.work) // the reconciles in flight reach their next check
	r1.proxy.Set(faultproxy.HoldAnswers)
	h.run(2 * h.tm.retry) // every bucket's renewal applied, its answer held
	from := record.Now()
	r1.cmd.Process.Signal(syscall.SIGSTOP)
	r1.proxy.Set(faultproxy.Open) // the answers wait in r1's socket
	h.start("r2")
	h.waitFor("r2 holds every bucket", 3*h.tm.lease+10*time.Second, func() bool {
		return len(lastHeld(h.events, "r2", record.Now())) == h.buckets
	})
	r1.cmd.Process.Signal(syscall.SIGCONT)
	h.pauses = append(h.pauses, pause{replica: r1.name, from: from, to: record.Now()})
	if h.await(h.tm.lease+h.tm.renew, func() bool { return len(h.leases.returnedTo(r1.name)) > 0 }) {
		h.t.Logf("buckets back with r1 at %s, after it resumed: %v", h.at(record.Now()), h.leases.returnedTo(r1.name))
	} else {
		h.t.Logf("no bucket back with r1 within %v of resuming", h.tm.lease+h.tm.renew)
	}
	h.stall(r1, false)
	// The stall froze r1's reconciles as a pause would: a hand-over that finds them still
	// running (an interruption found when a renew loop takes a bucket back, well after the
	// pause) is theirs to explain; checks 2 and 4 still hold their writes to the promise.
	h.pauses = append(h.pauses, pause{replica: r1.name, from: stalled, to: record.Now()})
	h.run(2 * time.Second)
	h.finish()
}

// requestOnReacquiredLease: r1 starts and finds bucket 0's Lease still naming it, as a replica
// restarted under the same name (a StatefulSet's pod) finds the Lease it did not release,
// carrying the hand-over request of a replica that has left since. Its elector takes the
// Lease back at once, without acquiring it from another holder, and notes the request before
// the holding begins. r1 must hand the bucket over all the same (and take it again, nobody
// else asking). Before the fix (the unit test TestRequestOnReacquiredLeaseIsHonoured), the
// request was dropped as the holding began and r1 kept the bucket: the request stayed
// unanswered for good, and the requester was counted live by the others.
func requestOnReacquiredLease(h *harness) {
	h.createLease(0, "r1", "r0")
	r1 := h.start("r1")
	limit := h.tm.lease + 10*h.tm.retry
	handedOver := func(e record.Event) bool {
		return e.Replica == r1.name && e.Kind == record.HandedOver && e.Bucket == 0 && e.Cause == "released"
	}
	if !h.await(limit, func() bool { return h.has(handedOver) }) {
		h.t.Errorf("r1 took back bucket 0's Lease, which carried r0's request, and did not hand it over within %v of starting", limit)
	}
	h.waitFor("every bucket held by one replica", 3*h.tm.lease+10*time.Second, h.covered)
	h.updateEvery(updatePeriod)
	h.run(time.Second)
	h.finish()
}

// releaseConflict: a graceful exit whose releases meet a conflict, as a hand-over request
// written between a release's read and its write makes one (the unit test
// TestReleaseRetriesAConflict). The leaver's requests reach the API server a second late;
// once its reconciles have ended, its electors stop and its releases read their Leases, and
// the answers are held in its proxy while the harness writes each of its Leases (an
// annotation: the record the electors compare does not change). When the answers go on, each
// release's write meets a conflict: it must read the Lease again and release it, seen three
// delays after the answers went on (the write refused, the read, the write), where a release
// that met no conflict is seen one delay after, and one that gave up leaves the bucket to
// wait out LeaseDuration.
func releaseConflict(h *harness) {
	const delay = time.Second
	victim := h.begin(2 * time.Second)
	victim.proxy.SetDelay(delay, 0)
	h.run(delay + h.tm.retry) // every request now on its way is a late one
	buckets := lastHeld(h.events, victim.name, record.Now())
	h.terminate(victim)
	h.waitFor(victim.name+"'s reconciles ended", h.tm.lease, func() bool {
		return len(lastHeld(h.events, victim.name, record.Now())) == 0 && inFlight(h.events, victim.name) == 0
	})
	victim.proxy.Set(faultproxy.HoldAnswers)
	h.run(2 * delay) // each release's read served, its answer held
	touched := h.touchLeases(victim.name, buckets)
	opened := record.Now()
	victim.proxy.Set(faultproxy.Open)
	h.awaitExit(victim)
	if len(touched) == 0 {
		h.t.Fatalf("%s released its Leases before the harness wrote them: no conflict arranged", victim.name)
	}
	var after []time.Duration
	for _, b := range touched {
		at, ok := h.leases.releasedAfter(b, opened)
		switch {
		case !ok:
			h.t.Errorf("bucket %d: %s's release met a conflict and the Lease was never released", b, victim.name)
		case at-opened < 2*delay:
			h.t.Errorf("bucket %d: released %v after the answers went on, as without a conflict: the scenario arranged none", b, at-opened)
		default:
			after = append(after, at-opened)
		}
	}
	slices.Sort(after)
	if len(after) > 0 {
		figure(h.t, "release after a conflict, from the answers going on", "%v to %v (%d buckets; %v per request)",
			after[0].Round(time.Millisecond), after[len(after)-1].Round(time.Millisecond), len(after), delay)
	}
	h.run(time.Second)
	h.finish()
}

// inFlight returns the number of replica's reconciles begun and not ended, by its record.
func inFlight(events []record.Event, replica string) int {
	n := 0
	for _, e := range events {
		switch {
		case e.Replica != replica:
		case e.Kind == record.Start:
			n++
		case e.Kind == record.End:
			n--
		}
	}
	return n
}
