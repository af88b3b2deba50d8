package bench

import (
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// ControllerRuntime is sigs.k8s.io/controller-runtime v0.25.2's priorityqueue, the queue of its
// controllers. It has one kind of queue for every purpose.
//
// priorityqueue.New takes a name, which controller-runtime uses as the metrics name. With an
// empty name it records no metrics (whatever the provider) and starts four goroutines: the add
// buffer, the ready items, the waiting items and a state logger that ticks every 10 s even
// when nothing is logged. With a name it records metrics through the provider (by default
// controller-runtime's Prometheus registry) and starts a fifth goroutine that updates the
// unfinished-work gauges every 500 ms. The workloads of issue 5 use the empty name, so that no
// implementation records metrics; the Named kind uses a name and a provider that discards.
// NewNamed and NewPrioritized record: with a Sink's atomic metrics, or with controller-runtime's
// own provider, in its registry (which that provider is bound to).
func ControllerRuntime() Impl {
	return Impl{
		Name: "controller-runtime",
		New: func(r Retry) Queue {
			return newPriorityQueue[int]("", r, nil)
		},
		NewKind: func(k Kind) ShutDowner {
			if k == Named {
				return newPriorityQueue[int]("bench", DefaultRetry, clientGoDiscard{})
			}
			return newPriorityQueue[int]("", DefaultRetry, nil)
		},
		NewStringKeyed: func(r Retry) Keyed[string] { return newPriorityQueue[string]("", r, nil) },
		NewNamed: func(name string, r Retry, sink Sink) Keyed[string] {
			var metrics workqueue.MetricsProvider // nil: controller-runtime's registry
			if sink.Atomic != nil {
				metrics = sink.Atomic.ClientGo()
			}
			return newPriorityQueue[string](name, r, metrics)
		},
		NewPrioritized: func(name string, r Retry) Prioritized { return newPriorityQueue[string](name, r, nil) },
	}
}

// newPriorityQueue returns controller-runtime's queue named name; a nil metrics provider means
// controller-runtime's own, which records in its registry.
func newPriorityQueue[K comparable](name string, r Retry, metrics workqueue.MetricsProvider) priorityqueue.PriorityQueue[K] {
	return priorityqueue.New(name, func(o *priorityqueue.Opts[K]) {
		o.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[K](r.Base, r.Max)
		if metrics != nil {
			o.MetricProvider = metrics
		}
	})
}
