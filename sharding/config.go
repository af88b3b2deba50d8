package sharding

import (
	"fmt"
	"time"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/actorqueue/workqueue/sharding/internal/timing"
)

// Config configures a [Sharder]. Client, Namespace, Name, Identity and Buckets are required;
// the durations default to those of Kubernetes' core components.
type Config struct {
	// Client reaches the Leases, e.g. clientset.CoordinationV1(). Each bucket's elector reads
	// its Lease every RetryPeriod and writes it too while it holds the bucket: 12 buckets at
	// 2 s make 6 to 12 requests a second, above client-go's default client limit of 5 (rest.Config
	// QPS), which would delay renewals on its own. Give the clientset a QPS and Burst above
	// 2*Buckets/RetryPeriod.
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
	return c
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
