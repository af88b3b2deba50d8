package controllerruntime_test

import (
	"context"
	"sync"
	"testing"

	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/actorqueue/workqueue/controllerruntime"
)

type newQueueFunc = func(string, clientgo.TypedRateLimiter[reconcile.Request]) clientgo.TypedRateLimitingInterface[reconcile.Request]

// kind is a queue a controller can run on.
type kind struct {
	name     string
	newQueue newQueueFunc
}

// kinds are actorqueue's queue, through the option line this module offers, and
// controller-runtime's own priority queue, made as controller-runtime makes it by default.
var kinds = []kind{
	{"actorqueue", controllerruntime.NewQueue[reconcile.Request]},
	{"controller-runtime", func(name string, rl clientgo.TypedRateLimiter[reconcile.Request]) clientgo.TypedRateLimitingInterface[reconcile.Request] {
		return priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) { o.RateLimiter = rl })
	}},
}

// job is an event: a key to reconcile, added with a priority.
type job struct {
	key      string
	priority int
}

// enqueue adds the key of each event with the event's priority. It asserts the queue is a
// priority queue, which it is even when the controller wraps a queue that is not (the wrapper
// then drops the priority).
var enqueue = handler.TypedFuncs[job, reconcile.Request]{
	GenericFunc: func(_ context.Context, e event.TypedGenericEvent[job], q clientgo.TypedRateLimitingInterface[reconcile.Request]) {
		q.(priorityqueue.PriorityQueue[reconcile.Request]).AddWithOpts(
			priorityqueue.AddOpts{Priority: &e.Object.priority}, reconcile.Request{NamespacedName: key(e.Object.key)})
	},
}

// running is a controller started in the current synctest bubble, fed by a source.Channel.
type running struct {
	events chan<- event.TypedGenericEvent[job]
	queue  clientgo.TypedRateLimitingInterface[reconcile.Request] // the queue NewQueue made
	// stop cancels the controller's context and returns what Start returned, once.
	stop func() error
}

// start builds a controller with controller.NewTypedUnmanaged on a queue of kind k, with
// workers workers, and starts it. The test's cleanup stops it, so that nothing is left blocked
// in the bubble after a failure.
func start(t *testing.T, k kind, name string, workers int, r reconcile.TypedReconciler[reconcile.Request]) *running {
	t.Helper()
	queues := make(chan clientgo.TypedRateLimitingInterface[reconcile.Request], 1)
	skip := true // the tests run more than once in a process (-count), with the same names
	c, err := controller.NewTypedUnmanaged(name, controller.TypedOptions[reconcile.Request]{
		Reconciler:              r,
		MaxConcurrentReconciles: workers,
		SkipNameValidation:      &skip,
		NewQueue: func(name string, rl clientgo.TypedRateLimiter[reconcile.Request]) clientgo.TypedRateLimitingInterface[reconcile.Request] {
			q := k.newQueue(name, rl)
			queues <- q
			return q
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan event.TypedGenericEvent[job])
	if err := c.Watch(source.TypedChannel(events, enqueue)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- c.Start(ctx) }()
	ctl := &running{events: events, queue: <-queues, stop: sync.OnceValue(func() error {
		cancel()
		return <-stopped
	})}
	t.Cleanup(func() { ctl.stop() })
	return ctl
}

// send sends the events of jobs, in order.
func (r *running) send(jobs ...job) {
	for _, j := range jobs {
		r.events <- event.TypedGenericEvent[job]{Object: j}
	}
}
