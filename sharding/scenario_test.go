package sharding

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// defaults fills the cluster's durations with the Config defaults, so that tests can do
// arithmetic with them.
func (c *cluster) defaults() *cluster {
	c.cfg.LeaseDuration, c.cfg.RenewDeadline, c.cfg.RetryPeriod = DefaultLeaseDuration, DefaultRenewDeadline, DefaultRetryPeriod
	c.cfg.MaxClockDrift = DefaultMaxClockDrift
	return c
}

func TestSteadyState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 8, 100).defaults()
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(60*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		c.checkBalanced(a, b, d)
		c.finish(a, b, d)
	})
}

func TestJoin(t *testing.T) { testJoin(t) }

// TestJoinWithCoordinatedGate is TestJoin on a server with the CoordinatedLeaderElection
// feature gate on, which refuses spec.preferredHolder without spec.strategy (hole 5's second
// half).
func TestJoinWithCoordinatedGate(t *testing.T) {
	testJoin(t, leasetest.WithCoordinatedLeaderElection())
}

// testJoin grows a cluster from 1 to 2 to 4 replicas on a server made with opts, and checks
// that the buckets spread evenly each time.
func testJoin(t *testing.T, opts ...leasetest.Option) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 12, 100).defaults()
		c.api = leasetest.NewServer(opts...)
		a := c.join("a")
		c.churn(10*time.Second, 20*time.Millisecond)
		c.checkOwned(a)
		b := c.join("b")
		c.churn(60*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b)
		c.checkBalanced(a, b)
		d, e := c.join("c"), c.join("d")
		c.churn(90*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d, e)
		c.checkBalanced(a, b, d, e)
		c.finish(a, b, d, e)
	})
}

func TestCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 8, 100).defaults()
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(60*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		orphans := b.sharder.Held()
		crashed := time.Now()
		c.crash(b)
		c.churn(c.cfg.LeaseDuration+8*c.cfg.RetryPeriod, 20*time.Millisecond)
		taken := c.acquisitionsSince(crashed)
		for _, bucket := range orphans {
			acq, ok := taken[bucket]
			if !ok {
				t.Errorf("bucket %d of the crashed replica was not taken over", bucket)
				continue
			}
			// The survivors wait out LeaseDuration from their last sight of a renewal, which
			// came at most a RetryPeriod (with client-go's jitter) before the crash, and the
			// balancing may leave it for three more to a replica below its share.
			if wait := acq.at.Sub(crashed); wait > c.cfg.LeaseDuration+6*c.cfg.RetryPeriod {
				t.Errorf("bucket %d taken over %v after the crash, want within LeaseDuration+6·RetryPeriod", bucket, wait)
			}
		}
		// Every bucket is held by one replica once the balance has settled, not at a fixed
		// instant after the crash: a survivor below its new share asks the other for a bucket
		// while it takes the crashed replica's, may end above its share and be asked back, and
		// a bucket being handed over is held by none. That settles within about 50 s of the
		// crash, with the electors' jitter at its worst; settle waits until 71 s. (Checked at
		// 31 s, 2 to 4 runs in 100 failed, before issue 42's changes as after.)
		c.settle()
		c.checkOwned(a, d)
		c.exit(a)
		c.exit(d)
	})
}

func TestGracefulExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 8, 100).defaults()
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(60*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		leaving := b.sharder.Held()
		exited := time.Now()
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.exit(b)
		}()
		c.churn(10*time.Second, 20*time.Millisecond)
		<-done
		taken := c.acquisitionsSince(exited)
		for _, bucket := range leaving {
			acq, ok := taken[bucket]
			if !ok {
				t.Errorf("bucket %d of the leaving replica was not taken over", bucket)
				continue
			}
			// Released: a one-second Lease, so sooner than the LeaseDuration a crash costs.
			if wait := acq.at.Sub(exited); wait >= c.cfg.LeaseDuration-2*c.cfg.RetryPeriod {
				t.Errorf("bucket %d taken over %v after a graceful exit, want less than LeaseDuration-2·RetryPeriod", bucket, wait)
			}
		}
		c.churn(20*time.Second, 20*time.Millisecond)
		c.checkOwned(a, d)
		c.finish(a, d)
	})
}

func TestCutOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 8, 100).defaults()
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(60*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		if len(b.sharder.Held()) == 0 {
			t.Fatal("replica b holds no bucket to lose")
		}
		b.link.cut.Store(true)
		// b keeps running and keeps being told of changes, but cannot renew: it gives its
		// buckets up after RenewDeadline, cancels their reconciles and drains before the
		// others may take them.
		c.churn(c.cfg.LeaseDuration+8*c.cfg.RetryPeriod, 20*time.Millisecond)
		if held := b.sharder.Held(); len(held) != 0 {
			t.Errorf("cut-off replica still holds %v", held)
		}
		c.checkOwned(a, d)
		b.link.cut.Store(false)
		c.churn(30*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		c.finish(a, b, d)
	})
}

// TestStubbornReconcile runs reconciles that ignore their context and outlive the hold
// window on a cut-off replica: the guarantee does not cover them, and the hand-over says so.
func TestStubbornReconcile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 2, 20).defaults()
		a := c.join("a")
		c.churn(5*time.Second, 50*time.Millisecond)
		c.mu.Lock()
		c.stubborn = true
		c.work = func() time.Duration { return 2 * c.cfg.LeaseDuration }
		c.mu.Unlock()
		c.churn(time.Second, 50*time.Millisecond)
		a.link.cut.Store(true)
		time.Sleep(c.cfg.LeaseDuration + 5*c.cfg.RetryPeriod)
		c.mu.Lock()
		overran := 0
		for _, h := range c.handovers {
			if h.Cause == Lost {
				overran += h.Overran
			}
		}
		c.mu.Unlock()
		if overran == 0 {
			t.Error("no lost bucket reported reconciles still running at its deadline")
		}
		c.exit(a)
	})
}

// TestGracefulExitWaitsForReconciles exits a replica whose reconciles run for 6 to 10 s, within
// the LeaseDuration a graceful hand-over waits: the Lease may be released only once they are
// done, or the next holder, which acquires a released Lease within a few seconds, would
// overlap them.
func TestGracefulExitWaitsForReconciles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 4, 60).defaults()
		c.workers = 64 // one per key: a key of a bucket just acquired is taken at once
		c.work = func() time.Duration { return time.Duration(6000+c.intn(4000)) * time.Millisecond }
		a, b := c.join("a"), c.join("b")
		c.churn(60*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.exit(b)
		}()
		c.churn(20*time.Second, 20*time.Millisecond)
		<-done
		c.checkOwned(a)
		c.finish(a)
	})
}

// TestRequestOnReacquiredLeaseIsHonoured: a replica takes back a Lease that still names it
// (its last term ended without releasing it) and carries another replica's request. Its
// elector notes the request as it acquires, before the tenure begins; the replica must hand
// the bucket over all the same. Dropping the request as the tenure began left it held for
// good, the request unanswered, and the requester counted live by the others (seen once in CI,
// as replicas that would not balance after one of them left).
func TestRequestOnReacquiredLeaseIsHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 1, 10).defaults()
		long := metav1.NewMicroTime(time.Now().Add(-time.Hour))
		seconds, holderA := int32(c.cfg.LeaseDuration/time.Second), "a"
		_, err := c.api.Clientset(nil).CoordinationV1().Leases(c.cfg.Namespace).Create(context.Background(), &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: c.cfg.Name + "-0", Labels: map[string]string{labelName: c.cfg.Name},
				Annotations: map[string]string{annotationRequest: "b"}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holderA, LeaseDurationSeconds: &seconds, AcquireTime: &long, RenewTime: &long},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := c.join("a")
		c.churn(c.cfg.LeaseDuration, 20*time.Millisecond)
		c.mu.Lock()
		var released []Handover
		for _, h := range c.handovers {
			if h.Cause == Released {
				released = append(released, h)
			}
		}
		c.mu.Unlock()
		if len(released) == 0 {
			t.Errorf("a acquired the Lease carrying b's request and did not hand it over (handovers: %v)", c.handovers)
		}
		c.finish(a)
	})
}
