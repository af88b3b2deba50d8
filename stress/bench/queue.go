package bench

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

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

// Prioritized is a named priority queue on string keys with controller-runtime's interface:
// AddWithOpts (priorities, delays, rate-limited adds) and GetWithPriority, which a
// controller-runtime controller uses.
type Prioritized interface {
	Keyed[string]
	AddWithOpts(o priorityqueue.AddOpts, items ...string)
	GetWithPriority() (item string, priority int, shutdown bool)
}

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
	// Name names the implementation in tables: "actorqueue", "client-go", "actorqueue
	// priority" or "controller-runtime".
	Name string
	// New returns an unnamed rate-limiting queue whose limiter is the exponential-failure
	// limiter r of the implementation's own package.
	New func(r Retry) Queue
	// NewKind returns a queue of the given kind, with DefaultRetry where it has a limiter.
	NewKind func(k Kind) ShutDowner
	// NewStringKeyed is New for a queue on string keys, as controllers built on client-go key their
	// queues by "namespace/name" (see WithStringKeys).
	NewStringKeyed func(r Retry) Keyed[string]
	// NewNamed returns a rate-limiting queue on string keys named name, with the limiter r,
	// whose metrics go to sink (see Sink). Give each queue a name of its own: queues of one
	// name share their series.
	NewNamed func(name string, r Retry, sink Sink) Keyed[string]
	// NewPrioritized returns a priority queue on string keys named name, with the limiter r,
	// whose metrics go to controller-runtime's registry (sigs.k8s.io/controller-runtime/pkg/
	// metrics.Registry), as a controller-runtime controller's do. It is nil for the
	// implementations without priorities, actorqueue's FIFO queue and client-go's.
	NewPrioritized func(name string, r Retry) Prioritized
}

// Impls returns the four implementations in the order of every table: actorqueue's FIFO queue,
// client-go's, whose drop-in replacement it is, then actorqueue's priority queue and
// controller-runtime's, whose replacement that is.
func Impls() []Impl {
	return []Impl{ActorQueue(), ClientGo(), ActorQueuePriority(), ControllerRuntime()}
}
