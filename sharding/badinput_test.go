package sharding

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding/internal/timing"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

func TestBadConfigPanics(t *testing.T) {
	var cut atomic.Bool
	valid := func() Config {
		return Config{Client: leasetest.NewServer().Clientset(&cut).CoordinationV1(), Namespace: "ns", Name: "x", Identity: "a", Buckets: 4}
	}
	for name, change := range map[string]func(*Config){
		"Client":                   func(c *Config) { c.Client = nil },
		"Namespace":                func(c *Config) { c.Namespace = "" },
		"Name":                     func(c *Config) { c.Name = "" },
		"Identity":                 func(c *Config) { c.Identity = "" },
		"Buckets":                  func(c *Config) { c.Buckets = 0 },
		"LeaseDuration":            func(c *Config) { c.LeaseDuration = 1500 * time.Millisecond },
		"RenewDeadline":            func(c *Config) { c.RenewDeadline = c.LeaseDuration },
		"RetryPeriod":              func(c *Config) { c.RetryPeriod = 9 * time.Second },
		"MaxClockDrift":            func(c *Config) { c.MaxClockDrift = -1 },
		"leaves no time to drain ": func(c *Config) { c.RenewDeadline = 13 * time.Second },
		"RenewDeadline is 1s with RetryPeriod 250ms": func(c *Config) {
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 2*time.Second, time.Second, 250*time.Millisecond
		},
	} {
		cfg := valid()
		cfg.LeaseDuration = DefaultLeaseDuration
		change(&cfg)
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "sharding: ") || !strings.Contains(msg, strings.TrimSpace(name)) {
					t.Errorf("%s: panic %q, want a sharding: message naming it", name, msg)
				}
			}()
			New(cfg)
		}()
	}
	s := New(valid())
	// Shut down, or their goroutines outlive the test until the garbage collector finds them,
	// and goleak may find them first (it did, one run in a few hundred).
	texts, ints := workqueue.NewTypedRateLimitingQueue[string](nil), workqueue.NewTypedRateLimitingQueue[int](nil)
	defer texts.ShutDown()
	defer ints.ShutDown()
	for name, f := range map[string]func(){
		"nil Sharder":   func() { Wrap[string](nil, texts, QueueConfig[string]{}) },
		"nil queue":     func() { Wrap[string](s, nil, QueueConfig[string]{}) },
		"Hash is nil":   func() { Wrap[int](s, ints, QueueConfig[int]{}) },
		"buckets is 0":  func() { BucketOf(1, 0) },
		"out of [0, 2)": func() { ShardSelector("object.metadata.uid", 2, 2) },
	} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "sharding: ") || !strings.Contains(msg, name) {
					t.Errorf("%s: panic %q, want a sharding: message saying so", name, msg)
				}
			}()
			f()
		}()
	}
}

// TestRetryPeriodAsTheElectorWants: New refuses a RetryPeriod exactly where client-go's
// elector does (RenewDeadline not above JitterFactor times it), so that the elector never
// refuses what New took.
func TestRetryPeriodAsTheElectorWants(t *testing.T) {
	for _, renew := range []time.Duration{12 * time.Second, 12*time.Second + time.Millisecond} {
		cfg := Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(), Namespace: "ns", Name: "x", Identity: "a", Buckets: 1,
			LeaseDuration: 30 * time.Second, RenewDeadline: renew, RetryPeriod: 10 * time.Second}
		_, electorErr := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: newBucketLease(&Sharder{cfg: cfg, holds: make([]timing.Hold, 1)}, 0), LeaseDuration: cfg.LeaseDuration,
			RenewDeadline: renew, RetryPeriod: cfg.RetryPeriod, Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(context.Context) {}, OnStoppedLeading: func() {}}})
		refused := func() (refused bool) {
			defer func() { refused = recover() != nil }()
			New(cfg)
			return false
		}()
		if refused != (electorErr != nil) {
			t.Errorf("RenewDeadline %v, RetryPeriod %v: New refused %v, the elector said %v", renew, cfg.RetryPeriod, refused, electorErr)
		}
	}
}

func TestDrainBudget(t *testing.T) {
	var cut atomic.Bool
	cfg := Config{Client: leasetest.NewServer().Clientset(&cut).CoordinationV1(), Namespace: "ns", Name: "x", Identity: "a", Buckets: 1}
	// 15 s / 1.1 − 10 s − 2 s
	lease := 15 * time.Second
	if got, want := cfg.DrainBudget(), time.Duration(float64(lease)/1.1)-12*time.Second; got != want {
		t.Errorf("DrainBudget = %v, want %v", got, want)
	}
}

// TestThrottledClientRefused: New refuses a clientset whose rate limiter allows fewer than
// 2*Buckets/RetryPeriod requests a second (client-go's default of 5 for 16 buckets, as the
// README's snippet once had), naming the numbers and the fix, and takes one at that rate, one
// without a limiter, and a fake clientset, whose limiter it cannot see.
func TestThrottledClientRefused(t *testing.T) {
	for _, tc := range []struct {
		qps     float32 // of the rest.Config; 0 is client-go's default, 5
		buckets int
		retry   time.Duration
		refused string // in the panic, or "" if New takes it
	}{
		{0, 16, 2 * time.Second, "allows 5 requests/s, below the 16 that 16 buckets"},
		{15.5, 16, 2 * time.Second, "QPS >= 16 and Burst >= 32"},
		{16, 16, 2 * time.Second, ""},
		{95, 12, 250 * time.Millisecond, "below the 96 that 12 buckets with a RetryPeriod of 250ms"},
		{96, 12, 250 * time.Millisecond, ""},
		{float32(2*3) / 3, 3, 3 * time.Second, ""}, // 2 a second, in float32
		{-1, 16, 2 * time.Second, ""},              // no limiter at all
	} {
		config := &rest.Config{Host: "http://127.0.0.1:1", QPS: tc.qps}
		if tc.qps > 0 {
			config.Burst = 2 * tc.buckets
		}
		clientset, err := kubernetes.NewForConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Client: clientset.CoordinationV1(), Namespace: "ns", Name: "x", Identity: "a", Buckets: tc.buckets,
			LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: tc.retry}
		if tc.retry < time.Second {
			cfg.LeaseDuration, cfg.RenewDeadline = 2*time.Second, 1200*time.Millisecond
		}
		msg := func() (msg string) {
			defer func() { msg, _ = recover().(string) }()
			New(cfg)
			return ""
		}()
		switch {
		case tc.refused == "" && msg != "":
			t.Errorf("QPS %g, %d buckets, RetryPeriod %v: New panicked %q", tc.qps, tc.buckets, tc.retry, msg)
		case tc.refused != "" && (!strings.HasPrefix(msg, "sharding: ") || !strings.Contains(msg, tc.refused)):
			t.Errorf("QPS %g, %d buckets, RetryPeriod %v: panic %q, want a sharding: message saying %q", tc.qps, tc.buckets, tc.retry, msg, tc.refused)
		}
	}
	// A fake clientset has no limiter to see.
	New(Config{Client: fake.NewClientset().CoordinationV1(), Namespace: "ns", Name: "x", Identity: "a", Buckets: 64})
}
