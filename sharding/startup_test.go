package sharding

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestJointStartBalances: three replicas that start within one RetryPeriod of each other
// (at the same instant, or 100 ms apart), with 12 buckets on 2 s / 1.2 s / 250 ms Leases,
// share the buckets 4/4/4 within jointStartRetries RetryPeriods of the last start, without a
// hand-over. Before the replicas announced themselves, the first to win took most buckets,
// the others each computed a share among fewer replicas than there were, and the buckets went
// round in hand-overs (1 to 13 in 13 runs) for up to 6 RetryPeriods or more.
func TestJointStartBalances(t *testing.T) {
	for _, apart := range []time.Duration{0, 100 * time.Millisecond} {
		t.Run(apart.String()+" apart", func(t *testing.T) { testJointStart(t, apart) })
	}
}

func testJointStart(t *testing.T, apart time.Duration) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 12, 60)
		c.cfg.LeaseDuration, c.cfg.RenewDeadline, c.cfg.RetryPeriod = 2*time.Second, 1200*time.Millisecond, 250*time.Millisecond
		c.cfg.MaxClockDrift = DefaultMaxClockDrift
		c.work = func() time.Duration { return time.Duration(20+c.intn(180)) * time.Millisecond }
		var rs []*replica
		for i, id := range []string{"a", "b", "c"} {
			if i > 0 {
				time.Sleep(apart)
			}
			rs = append(rs, c.join(id))
		}
		start := time.Now()
		balanced := func() bool {
			o := c.owners(rs...)
			for b := range c.cfg.Buckets {
				if len(o[b]) != 1 {
					return false
				}
			}
			for _, r := range rs {
				if len(r.sharder.Held()) != 4 {
					return false
				}
			}
			return true
		}
		limit := start.Add(jointStartRetries * c.cfg.RetryPeriod)
		for !balanced() && time.Now().Before(limit) {
			c.touch(c.keys[c.intn(len(c.keys))])
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(start)
		c.churn(5*time.Second, 20*time.Millisecond) // and it stays so
		c.mu.Lock()
		handovers := len(c.handovers)
		c.mu.Unlock()
		t.Logf("balanced %v after the last start (%.1f RetryPeriods), %d hand-overs", took, float64(took)/float64(c.cfg.RetryPeriod), handovers)
		if !balanced() {
			t.Errorf("not 4/4/4 %v after a joint start: %v", time.Since(start), c.owners(rs...))
		}
		if took >= jointStartRetries*c.cfg.RetryPeriod {
			t.Errorf("balanced %v after a joint start, want within %d RetryPeriods", took, jointStartRetries)
		}
		if handovers > 0 {
			t.Errorf("%d hand-overs from a joint start, want none: %v", handovers, c.handovers)
		}
		c.finish(rs...)
	})
}

// jointStartRetries bounds, in RetryPeriods, how long replicas that start together take to
// balance.
const jointStartRetries = 6

// TestMemberLeases: a replica's member Lease exists while it runs, is deleted when it leaves,
// and, when it crashes, is deleted by another replica once that one has seen it unchanged for
// two LeaseDurations, and not before.
func TestMemberLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 4, 10).defaults()
		members := func() map[string]bool {
			m := make(map[string]bool)
			for key, holder := range c.api.Holders() {
				if strings.Contains(key, "/"+c.cfg.Name+"-r") {
					m[holder] = true
				}
			}
			return m
		}
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		c.churn(3*c.cfg.RetryPeriod, 50*time.Millisecond)
		if m := members(); !m["a"] || !m["b"] || !m["c"] || len(m) != 3 {
			t.Fatalf("member Leases of %v, want a, b and c", m)
		}
		c.exit(b)
		if m := members(); m["b"] {
			t.Errorf("b's member Lease is still there after it left")
		}
		c.crash(d)
		crashed := time.Now()
		// c renewed it at most a RetryPeriod before the crash, and a saw that within one more.
		c.churn(2*c.cfg.LeaseDuration-2*c.cfg.RetryPeriod, 50*time.Millisecond)
		if m := members(); !m["c"] {
			t.Errorf("c's member Lease deleted %v after it crashed, before two LeaseDurations", time.Since(crashed))
		}
		c.churn(5*c.cfg.RetryPeriod, 50*time.Millisecond)
		if m := members(); m["c"] || !m["a"] {
			t.Errorf("member Leases of %v %v after c crashed, want a's alone", m, time.Since(crashed))
		}
		c.finish(a)
	})
}
