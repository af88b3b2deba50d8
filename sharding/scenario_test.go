package sharding

import (
	"testing"
	"testing/synctest"
	"time"
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
		c.churn(30*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		c.settle()
		for _, r := range []*replica{a, b, d} {
			c.exit(r)
		}
	})
}

func TestCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 8, 100).defaults()
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(20*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		orphans := b.sharder.Held()
		crashed := time.Now()
		c.crash(b)
		c.churn(30*time.Second, 20*time.Millisecond)
		c.checkOwned(a, d)
		taken := c.acquisitionsSince(crashed)
		for _, bucket := range orphans {
			acq, ok := taken[bucket]
			if !ok {
				t.Errorf("bucket %d of the crashed replica was not taken over", bucket)
				continue
			}
			// The survivors wait out LeaseDuration from their last sight of a renewal, which
			// came at most a RetryPeriod (with client-go's jitter) before the crash.
			if wait := acq.at.Sub(crashed); wait > c.cfg.LeaseDuration+3*c.cfg.RetryPeriod {
				t.Errorf("bucket %d taken over %v after the crash, want within LeaseDuration+3·RetryPeriod", bucket, wait)
			}
		}
		c.settle()
		c.exit(a)
		c.exit(d)
	})
}

func TestGracefulExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 8, 100).defaults()
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(20*time.Second, 20*time.Millisecond)
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
			// Released: a one-second Lease, seen within a RetryPeriod, so far sooner than
			// LeaseDuration.
			if wait := acq.at.Sub(exited); wait >= c.cfg.LeaseDuration/2 {
				t.Errorf("bucket %d taken over %v after a graceful exit, want less than LeaseDuration/2", bucket, wait)
			}
		}
		c.churn(20*time.Second, 20*time.Millisecond)
		c.checkOwned(a, d)
		c.settle()
		c.exit(a)
		c.exit(d)
	})
}

func TestCutOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 8, 100).defaults()
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(20*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		if len(b.sharder.Held()) == 0 {
			t.Fatal("replica b holds no bucket to lose")
		}
		b.cut.Store(true)
		// b keeps running and keeps being told of changes, but cannot renew: it gives its
		// buckets up after RenewDeadline, cancels their reconciles and drains before the
		// others may take them.
		c.churn(c.cfg.LeaseDuration+5*c.cfg.RetryPeriod, 20*time.Millisecond)
		if held := b.sharder.Held(); len(held) != 0 {
			t.Errorf("cut-off replica still holds %v", held)
		}
		c.checkOwned(a, d)
		b.cut.Store(false)
		c.churn(30*time.Second, 20*time.Millisecond)
		c.checkOwned(a, b, d)
		c.settle()
		for _, r := range []*replica{a, b, d} {
			c.exit(r)
		}
	})
}
