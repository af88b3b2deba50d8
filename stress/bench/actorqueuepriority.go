package bench

import (
	workqueue "github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/controllerruntime"
)

// ActorQueuePriority is this repository's priority queue as a controller-runtime user gets it:
// the queue of the controllerruntime module (controllerruntime.New), controller-runtime's
// priorityqueue interface on the root package's priority queue. Tables compare it with
// controller-runtime's queue, whose replacement it is. Like that queue, it has one kind for
// every purpose; named, it records in controller-runtime's registry unless given a provider.
func ActorQueuePriority() Impl {
	return Impl{
		Name: "actorqueue priority",
		New: func(r Retry) Queue {
			return newActorQueuePriority[int]("", r, nil)
		},
		NewKind: func(k Kind) ShutDowner {
			if k == Named {
				return newActorQueuePriority[int]("bench", DefaultRetry, actorQueueDiscard{})
			}
			return newActorQueuePriority[int]("", DefaultRetry, nil)
		},
		NewStringKeyed: func(r Retry) Keyed[string] { return newActorQueuePriority[string]("", r, nil) },
		NewNamed: func(name string, r Retry, sink Sink) Keyed[string] {
			var metrics workqueue.MetricsProvider // nil: controller-runtime's registry
			if sink.Atomic != nil {
				metrics = sink.Atomic.ActorQueue()
			}
			return newActorQueuePriority[string](name, r, metrics)
		},
		NewPrioritized: func(name string, r Retry) Prioritized { return newActorQueuePriority[string](name, r, nil) },
	}
}

// newActorQueuePriority returns the controllerruntime module's queue named name, with the
// exponential limiter r of package workqueue; a nil metrics provider means controller-runtime's
// registry for a named queue.
func newActorQueuePriority[K comparable](name string, r Retry, metrics workqueue.MetricsProvider) *controllerruntime.Queue[K] {
	return controllerruntime.New(workqueue.TypedPriorityQueueConfig[K]{
		Name:            name,
		MetricsProvider: metrics,
		RateLimiter:     workqueue.NewTypedItemExponentialFailureRateLimiter[K](r.Base, r.Max),
	})
}
