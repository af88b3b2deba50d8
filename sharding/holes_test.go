package sharding

import (
	"context"
	"flag"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The regression tests of the five holes of issue 33, each over several seeds: the seed picks
// the reconciles' lengths and the instants of the faults, so each seed is another interleaving
// of the replicas with the faults. Run more with -seeds.

var seeds = flag.Int("seeds", 6, "seeds of each regression test of issue 33")

// eachSeed runs f in a synctest bubble once per seed, as subtests.
func eachSeed(t *testing.T, f func(t *testing.T, seed uint64)) {
	for seed := range uint64(*seeds) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { f(t, seed) })
		})
	}
}

// subSecond is the Config of the module's example and shardbench: 2 s Leases renewed every
// 250 ms, so four renewals share each second of renewTime. Its drain budget is 368 ms.
func (c *cluster) subSecond() *cluster {
	c.cfg.LeaseDuration, c.cfg.RenewDeadline, c.cfg.RetryPeriod = 2*time.Second, 1200*time.Millisecond, 250*time.Millisecond
	c.cfg.MaxClockDrift = DefaultMaxClockDrift
	c.work = func() time.Duration { return c.between(50*time.Millisecond, 400*time.Millisecond) }
	c.step, c.stopLatency = 50*time.Millisecond, 300*time.Millisecond
	return c
}

// tenSecondWindow is a Config whose hold window is a whole 10 s (11 s Leases, a drift of 0.1),
// so that a replica whose clock runs at the drift bound can be shown as seeing 10 s Leases,
// with RenewDeadline and RetryPeriod adding up to 8 s: the drain budget is 2 s.
func (c *cluster) tenSecondWindow(renewDeadline, retryPeriod time.Duration) *cluster {
	c.cfg.LeaseDuration, c.cfg.RenewDeadline, c.cfg.RetryPeriod = 11*time.Second, renewDeadline, retryPeriod
	c.cfg.MaxClockDrift = DefaultMaxClockDrift
	c.stopLatency = 1500 * time.Millisecond
	return c
}

// renewedAt returns when r last renewed one of its Leases, by their renewTime: the fake clock
// is every replica's wall clock.
func (c *cluster) renewedAt(r *replica) time.Time {
	c.t.Helper()
	list, err := c.api.Clientset(nil).CoordinationV1().Leases(c.cfg.Namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	var last time.Time
	for _, lease := range list.Items {
		if lease.Labels[labelMember] == "" && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity == r.id && lease.Spec.RenewTime.After(last) {
			last = lease.Spec.RenewTime.Time
		}
	}
	return last
}

// busiest returns the replica of rs that holds the most buckets.
func busiest(rs ...*replica) *replica {
	best := rs[0]
	for _, r := range rs[1:] {
		if len(r.sharder.Held()) > len(best.sharder.Held()) {
			best = r
		}
	}
	return best
}

// Hole 1: renewals other replicas cannot see. With 250 ms retries, four renewals a second
// write the same record as client-go's electors compare it (renewTime in whole seconds), so the
// others count from the first of them; a holder that counted from the last held on up to
// 0.75 s too long.
func TestRenewalsWithinOneSecond(t *testing.T) {
	eachSeed(t, func(t *testing.T, seed uint64) {
		c := newCluster(t, 4, 40).seed(seed).subSecond()
		time.Sleep(c.between(0, time.Second)) // the phase of the renewals within the second
		a, b := c.join("a"), c.join("b")
		c.churn(10*time.Second, 20*time.Millisecond)
		for range 8 {
			victim := busiest(a, b)
			c.churn(c.between(0, time.Second), 20*time.Millisecond)
			victim.link.cut.Store(true)
			c.churn(3*time.Second, 20*time.Millisecond)
			victim.link.cut.Store(false)
			c.churn(5*time.Second, 20*time.Millisecond)
		}
		c.finish(a, b)
	})
}

// Hole 2: reconciles outlived the hold window. A renewal applied at once but answered 6 to
// 9 s late (client-go's default durations) pushed the elector's report of the loss, which
// alone cancelled the bucket's reconciles, past the hold window; here the replica is cut off
// right after such a renewal.
func TestLateRenewalAnswers(t *testing.T) {
	eachSeed(t, func(t *testing.T, seed uint64) {
		c := newCluster(t, 4, 40).seed(seed).defaults()
		c.work = func() time.Duration { return c.between(2*time.Second, 6*time.Second) }
		c.workers = 16
		a, b := c.join("a"), c.join("b")
		c.churn(40*time.Second, 50*time.Millisecond)
		victim := busiest(a, b)
		victim.link.setLate(func() time.Duration { return c.between(6*time.Second, 9*time.Second) })
		c.churn(c.between(10*time.Second, 30*time.Second), 50*time.Millisecond)
		victim.link.cut.Store(true)
		c.churn(c.cfg.LeaseDuration+10*c.cfg.RetryPeriod, 50*time.Millisecond)
		victim.link.setLate(nil)
		victim.link.cut.Store(false)
		c.churn(30*time.Second, 50*time.Millisecond)
		c.finish(a, b)
	})
}

// Hole 3: keys lost while a held bucket's window had lapsed. Renewals answered 8 to 9.5 s late
// (within RenewDeadline, so the elector never gives up) leave the hold window closed for
// seconds between them; the keys handed out meanwhile were discarded as not ours, and since
// the bucket was never lost, nothing listed them again. With 400 keys, most are changed once
// or twice, so a dropped change is rarely made good by a later one.
func TestLapsedWindowKeepsKeys(t *testing.T) {
	eachSeed(t, func(t *testing.T, seed uint64) {
		c := newCluster(t, 4, 400).seed(seed).defaults()
		a, b := c.join("a"), c.join("b")
		c.churn(40*time.Second, 50*time.Millisecond)
		slow := busiest(a, b)
		slow.link.setLate(func() time.Duration { return c.between(8*time.Second, 9500*time.Millisecond) })
		c.churn(60*time.Second, 50*time.Millisecond)
		// No key changes from now on: a change that was dropped stays lost.
		time.Sleep(30 * time.Second)
		slow.link.setLate(nil)
		c.finish(a, b)
	})
}

// pausePair starts the cluster of the pause tests: two replicas, a 10 s hold window, b's clock
// at the drift bound, reconciles of 1 to 4 s with a worker for each of the 16 keys (so that
// b takes a's keys the moment it acquires their bucket), and the checker of stale writes.
func pausePair(t *testing.T, seed uint64, renewDeadline, retryPeriod time.Duration) (c *cluster, a, b *replica) {
	c = newCluster(t, 2, 16).seed(seed).tenSecondWindow(renewDeadline, retryPeriod)
	c.pausing = true
	c.workers = 16
	c.work = func() time.Duration { return c.between(time.Second, 4*time.Second) }
	a, b = c.join("a"), c.join("b")
	b.link.fastClock(11, 10)
	c.churn(40*time.Second, 50*time.Millisecond)
	return c, a, b
}

// Hole 4, first case: a healthy holder paused for 9.9 s, less than its 10 s hold window, while
// the other replica's clock runs at the drift bound. The holder's reconciles resumed, and its
// Queue's contexts were cancelled only once its elector, resuming after them, reported the
// loss: they wrote to keys the other replica had taken.
func TestPauseOfHealthyHolder(t *testing.T) {
	eachSeed(t, func(t *testing.T, seed uint64) {
		c, a, b := pausePair(t, seed, 6*time.Second, 2*time.Second)
		for range 10 {
			// Right before a's next renewal, so that its hold window closes during the pause.
			time.Sleep(time.Until(c.renewedAt(a).Add(c.cfg.RetryPeriod - 10*time.Millisecond)))
			c.pause(a, 9900*time.Millisecond)
			c.churn(30*time.Second, 50*time.Millisecond)
		}
		c.finish(a, b)
	})
}

// Hole 4, second case: a 5 s pause of a replica cut off from the API server, beginning 6 s
// after the cut, just before client-go would report the loss (it retries every second for
// 7 s), and ending after the hold window (10 s, the other replica's clock at the drift
// bound). As in the first case, the reconciles resumed before the elector's report could
// cancel them.
func TestPauseWhileCutOff(t *testing.T) {
	eachSeed(t, func(t *testing.T, seed uint64) {
		c, a, b := pausePair(t, seed, 7*time.Second, time.Second)
		for range 3 {
			if len(a.sharder.Held()) == 0 {
				break
			}
			c.churn(c.between(0, 2*time.Second), 50*time.Millisecond)
			a.link.cut.Store(true)
			c.churn(6*time.Second, 50*time.Millisecond)
			c.pause(a, 5*time.Second)
			c.churn(10*time.Second, 50*time.Millisecond)
			a.link.cut.Store(false)
			c.churn(30*time.Second, 50*time.Millisecond)
		}
		c.finish(a, b)
	})
}
