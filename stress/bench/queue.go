package bench

import "time"

// Keyed is what the workloads need from a queue: client-go's rate-limiting interface on keys
// of type K. The rate-limiting queues of all three implementations satisfy it as they are.
type Keyed[K comparable] interface {
	Add(item K)
	AddAfter(item K, delay time.Duration)
	AddRateLimited(item K)
	Forget(item K)
	Get() (item K, shutdown bool)
	Done(item K)
	Len() int
	ShuttingDown() bool
	ShutDown()
}

// Queue is a queue on int keys, the keys of the workloads.
type Queue = Keyed[int]

// ShutDowner is any queue, of any kind: the footprint measurements only create and stop them.
type ShutDowner interface{ ShutDown() }

// Kind is a kind of queue, for the measurements that differ by kind.
type Kind int

// The kinds of queue. controller-runtime has one kind, the priority queue, which stands in for
// all four.
const (
	// Plain is a queue with Add, Get and Done only (client-go's NewTyped).
	Plain Kind = iota
	// Delaying adds AddAfter (client-go's NewTypedDelayingQueue).
	Delaying
	// RateLimiting adds AddRateLimited, Forget and NumRequeues; the workloads use this kind.
	RateLimiting
	// Named is a rate-limiting queue with a name and a metrics provider, so that it records
	// the queue metrics (into counters nobody reads).
	Named
)

// Kinds lists every Kind, in order.
var Kinds = []Kind{Plain, Delaying, RateLimiting, Named}

// String names the kind for tables.
func (k Kind) String() string {
	switch k {
	case Plain:
		return "plain"
	case Delaying:
		return "delaying"
	case RateLimiting:
		return "rate-limiting"
	case Named:
		return "named, with metrics"
	}
	return "unknown"
}

// Retry is the exponential-failure limiter of a rate-limiting queue: the n-th failure of an
// item waits Base·2^(n-1), at most Max.
type Retry struct {
	Base, Max time.Duration
}

// DefaultRetry is the exponential part of client-go's default controller limiter, which is also
// controller-runtime's default: 5 ms doubling up to 1000 s.
var DefaultRetry = Retry{Base: 5 * time.Millisecond, Max: 1000 * time.Second}

// Impl is one implementation under comparison. Its constructors are safe for simultaneous
// use; every queue they return must be shut down exactly once.
type Impl struct {
	// Name names the implementation in tables: "actorqueue", "client-go" or
	// "controller-runtime".
	Name string
	// New returns an unnamed rate-limiting queue whose limiter is the exponential-failure
	// limiter r of the implementation's own package.
	New func(r Retry) Queue
	// NewKind returns a queue of the given kind, with DefaultRetry where it has a limiter.
	NewKind func(k Kind) ShutDowner
	// NewStringKeyed is New for a queue on string keys, as controllers built on client-go key their
	// queues by "namespace/name" (see WithStringKeys).
	NewStringKeyed func(r Retry) Keyed[string]
}

// Impls returns the three implementations, actorqueue first: the order of every table.
func Impls() []Impl { return []Impl{ActorQueue(), ClientGo(), ControllerRuntime()} }
