package controllerruntime

import (
	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/actorqueue/workqueue"
)

// Queue is an actorqueue priority queue that implements controller-runtime's
// priorityqueue.PriorityQueue[T]. Every method but AddWithOpts is the embedded queue's, so the
// extensions (GetWithContext, ShutDownWithDrainContext, AddBatch, Snapshot) are there too.
// Create it with [NewQueue] or [New]. It is safe for simultaneous use by multiple goroutines.
type Queue[T comparable] struct {
	*workqueue.TypedPriorityQueue[T]
}

var _ priorityqueue.PriorityQueue[string] = (*Queue[string])(nil)

// NewQueue has the type of controller-runtime's TypedOptions[T].NewQueue: it returns a *Queue
// named controllerName, whose AddRateLimited and failed reconciles wait as rateLimiter decides,
// and whose metrics go to controller-runtime's registry under the labels
// name=controller=controllerName, as those of controller-runtime's own queue do.
//
// rateLimiter is the controller's RateLimiter option, or controller-runtime's default (an
// exponential backoff per item from 5 ms up to 1000 s). The queue adopts a limiter from
// package github.com/actorqueue/workqueue and calls it from its own goroutine, without locks;
// calls made to it elsewhere run there too.
//
// It panics if the metrics cannot be registered there, which happens only if the registry
// holds other metrics under controller-runtime's workqueue names (see [NewProvider]).
func NewQueue[T comparable](controllerName string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
	return New(workqueue.TypedPriorityQueueConfig[T]{Name: controllerName, RateLimiter: rateLimiter})
}

// New returns a Queue configured by config: a priority queue of package workqueue with
// controller-runtime's interface. A named queue without a MetricsProvider records its metrics in
// controller-runtime's registry, as controller-runtime's priorityqueue.New does; to record
// them elsewhere, pass a [Provider] for another registry, or any other provider ([FromClientGo]
// adapts one written for client-go). It panics as [NewQueue] does when it cannot register them.
func New[T comparable](config workqueue.TypedPriorityQueueConfig[T]) *Queue[T] {
	if config.MetricsProvider == nil && config.Name != "" {
		provider, err := registryProvider()
		if err != nil {
			panic("workqueue: controllerruntime.New: " + err.Error())
		}
		config.MetricsProvider = provider
	}
	return &Queue[T]{workqueue.NewTypedPriorityQueue(config)}
}

// AddWithOpts adds items with controller-runtime's options: After delays them, RateLimited
// delays them by the rate limiter's wait when that is shorter (or After is zero), Priority ranks
// them (higher first; nil is zero). An item already ready or waiting keeps the higher of its
// priorities and the earlier of its instants. It does nothing after shutdown.
func (q *Queue[T]) AddWithOpts(o priorityqueue.AddOpts, items ...T) {
	q.TypedPriorityQueue.AddWithOpts(workqueue.AddOpts{After: o.After, RateLimited: o.RateLimited, Priority: o.Priority}, items...)
}
