package sharding

import (
	"fmt"
	"time"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

	"github.com/actorqueue/workqueue/sharding/internal/timing"
)

// Config configures a [Sharder]. Client, Namespace, Name, Identity and Buckets are required;
// the durations default to those of Kubernetes' core components.
type Config struct {
	// Client reaches the Leases, e.g. clientset.CoordinationV1(). Each bucket's elector makes
	// up to two requests per RetryPeriod (a read, and a write while it holds or acquires the
	// bucket), and the balancer lists the Leases and renews the replica's member Lease once per
	// RetryPeriod (the verbs: get, list, create, update, and delete for the member Leases of
	// replicas gone): 16 buckets at 2 s make 9 to 17 requests a second, above client-go's default client limit (rest.Config QPS 5,
	// Burst 10), behind which renewals would wait until the buckets are lost. Build the
	// clientset from a copy of the rest.Config with QPS at least 2*Buckets/RetryPeriod and
	// Burst at least 2*Buckets, and share it with nothing else that is busy.
	//
	// New panics when Client is a clientset's CoordinationV1() (anything with a RESTClient)
	// whose rate limiter allows fewer requests a second: that is the only limiter it can see.
	// Burst, a limiter shared with other requests, or one inside a wrapper or a transport it
	// cannot see; client-go then logs "Waited before sending request" (at level 3 above 50 ms,
	// at level 0 above 1 s), the sign of renewals queued behind it.
	Client coordinationv1client.LeasesGetter
	// Namespace holds the Leases.
	Namespace string
	// Name prefixes the Leases: bucket b is the Lease "<Name>-<b>". Every replica of a
	// controller uses the same Name, Namespace and Buckets.
	Name string
	// Identity names this replica in the Leases' holderIdentity; it must be unique among the
	// replicas, e.g. the pod name.
	Identity string
	// Buckets is the number of buckets the keys are split into, each a Lease. More buckets than
	// replicas spread the keys more evenly and make each hand-over smaller; each costs one
	// Lease renewal per RetryPeriod.
	Buckets int

	// LeaseDuration is how long other replicas wait, after they last saw a Lease renewed,
	// before they take it over. It must be a whole number of seconds, as a Lease records it in
	// seconds. Zero means 15 s.
	LeaseDuration time.Duration
	// RenewDeadline is how long the holder keeps retrying a failed renewal before it gives the
	// bucket up. Zero means 10 s.
	RenewDeadline time.Duration
	// RetryPeriod is the interval between the electors' attempts to acquire and to renew. Zero
	// means 2 s.
	RetryPeriod time.Duration
	// MaxClockDrift bounds how much faster one replica's clock may run than another's, as a
	// fraction: 0.1 means that while 1 s passes on the slowest clock, at most 1.1 s passes on
	// the fastest. A replica counts its hold on a bucket as ending LeaseDuration/(1+MaxClockDrift)
	// after the first of its writes that produced the Lease record the others see now began
	// (see the package documentation). Zero means 0.1.
	MaxClockDrift float64

	// Metrics receives the sharder's and its queues' measurements; nil records none.
	Metrics Metrics
}

// Defaults of the Config durations, those of Kubernetes' core components.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	DefaultMaxClockDrift = 0.1
)

// withDefaults returns c with its zero durations defaulted, or panics with a "sharding:"
// message naming what is wrong with it.
func (c Config) withDefaults() Config {
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	if c.MaxClockDrift == 0 {
		c.MaxClockDrift = DefaultMaxClockDrift
	}
	if c.Metrics == nil {
		c.Metrics = noMetrics{}
	}
	switch {
	case c.Client == nil:
		panic("sharding: Config.Client is nil")
	case c.Namespace == "":
		panic("sharding: Config.Namespace is empty")
	case c.Name == "":
		panic("sharding: Config.Name is empty")
	case c.Identity == "":
		panic("sharding: Config.Identity is empty")
	case c.Buckets <= 0:
		panic(fmt.Sprintf("sharding: Config.Buckets is %d, want > 0", c.Buckets))
	}
	if err := c.durations().Check(); err != nil {
		panic(err.Error())
	}
	c.checkClientRate()
	return c
}

// checkClientRate panics if Client's rate limiter, when it shows one, allows fewer than
// 2*Buckets/RetryPeriod requests a second (see Config.Client).
func (c Config) checkClientRate() {
	rc, ok := c.Client.(interface{ RESTClient() rest.Interface })
	if !ok {
		return // a wrapper: its limiter, if any, is out of sight
	}
	limiter := rc.RESTClient().GetRateLimiter() // nil for a fake clientset, or QPS < 0
	if limiter == nil {
		return
	}
	need := 2 * float64(c.Buckets) / c.RetryPeriod.Seconds()
	if qps := float64(limiter.QPS()); qps < need*(1-1e-6) {
		panic(fmt.Sprintf("sharding: Config.Client's rate limiter allows %g requests/s, below the %g that %d buckets "+
			"with a RetryPeriod of %v may need (2*Buckets/RetryPeriod), so renewals would wait behind it and buckets be lost: "+
			"build the clientset from a copy of the rest.Config with QPS >= %g and Burst >= %d",
			qps, need, c.Buckets, c.RetryPeriod, need, 2*c.Buckets))
	}
}

// durations returns the durations of c, defaulted, as package timing takes them.
func (c Config) durations() timing.Durations {
	return timing.Durations{LeaseDuration: c.LeaseDuration, RenewDeadline: c.RenewDeadline, RetryPeriod: c.RetryPeriod, MaxClockDrift: c.MaxClockDrift}
}

// DrainBudget returns the time a reconcile has, once its context has ended (see
// [Queue.Context]), to return, and for its last write to be applied, before another
// replica may acquire the bucket: LeaseDuration/(1+MaxClockDrift) − RenewDeadline −
// RetryPeriod, with c's zero fields defaulted. It panics as [New] does if c is invalid.
//
// A key's context ends RenewDeadline+RetryPeriod after the write that the hold window counts
// from began, the instant by which client-go's elector reports a loss when its answers are
// prompt; when they are late, the context ends first.
func (c Config) DrainBudget() time.Duration { return c.withDefaults().durations().DrainBudget() }
