// Package controllerruntime runs controller-runtime (sigs.k8s.io/controller-runtime v0.25)
// controllers on an actorqueue priority queue. One option line does it:
//
//	c, err := controller.NewTyped("pods", mgr, controller.TypedOptions[reconcile.Request]{
//		Reconciler: r,
//		NewQueue:   controllerruntime.NewQueue[reconcile.Request],
//	})
//
// The queue implements controller-runtime's priorityqueue.PriorityQueue, so the controller
// uses it as it uses its own: Result.Priority and Result.RequeueAfter, the low priority of
// the initial list's events and rate-limited retries all behave the same. Its metrics land in
// controller-runtime's registry (sigs.k8s.io/controller-runtime/pkg/metrics.Registry), in the
// very series controller-runtime's own queues use (see [NewProvider]).
//
// What differs from controller-runtime's own queue: the queue is one goroutine instead of
// four or five; ShutDownWithDrain waits for the items in processing (controller-runtime's only
// shuts down; controllers call ShutDown); the unfinished-work gauges move every 500 ms only
// while items are in processing, and once more to zero after; and the depth of a queue that
// has seen more than 25 priorities keeps the series of its first 25 (see [NewProvider]).
package controllerruntime
