package controllerruntime_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/controllerruntime"
)

// run starts an unmanaged controller with options o, and returns its queue and the function
// that stops it. The queue comes from a source, through which the examples add requests as an
// informer's handler would.
func run(name string, o controller.TypedOptions[reconcile.Request]) (clientgo.TypedRateLimitingInterface[reconcile.Request], func()) {
	skip := true // examples may run more than once in a process
	o.SkipNameValidation = &skip
	c, err := controller.NewTypedUnmanaged(name, o)
	if err != nil {
		panic(err)
	}
	queues := make(chan clientgo.TypedRateLimitingInterface[reconcile.Request], 1)
	err = c.Watch(source.Func(func(_ context.Context, q clientgo.TypedRateLimitingInterface[reconcile.Request]) error {
		queues <- q
		return nil
	}))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- c.Start(ctx) }()
	return <-queues, func() { cancel(); <-stopped }
}

var web = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "web"}}

// A reconciler that learns, from its context, that its request was added again while it ran:
// it stops, and the controller reconciles the request again, from a fresh read.
func ExampleLink() {
	var link controllerruntime.Link[reconcile.Request]
	said := make(chan string)
	next := make(chan struct{})
	reconciler := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		for step := 1; step <= 3; step++ {
			if controllerruntime.Superseded(ctx) {
				said <- fmt.Sprintf("%s superseded before step %d: stop", req, step)
				return reconcile.Result{}, nil
			}
			said <- fmt.Sprintf("%s step %d", req, step)
			<-next
		}
		said <- fmt.Sprintf("%s reconciled", req)
		return reconcile.Result{}, nil
	})
	queue, stop := run("link", controller.TypedOptions[reconcile.Request]{
		NewQueue:   link.NewQueue,
		Reconciler: link.Reconciler(reconciler),
	})
	queue.Add(web)
	fmt.Println(<-said)
	next <- struct{}{}
	fmt.Println(<-said)
	queue.Add(web) // the informer's handler: the Deployment changed during step 2
	next <- struct{}{}
	fmt.Println(<-said)
	for range 3 { // the reconcile that follows runs to its end
		fmt.Println(<-said)
		next <- struct{}{}
	}
	fmt.Println(<-said)
	stop()
	// Output:
	// default/web step 1
	// default/web step 2
	// default/web superseded before step 3: stop
	// default/web step 1
	// default/web step 2
	// default/web step 3
	// default/web reconciled
}

// A controller whose queue debounces: ten changes of one object in a row make one reconcile,
// 200ms after the last.
func ExampleNewQueueWith() {
	var reconciles atomic.Int32
	done := make(chan struct{}, 10) // a second reconcile, were there one, must not block stop
	reconciler := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		reconciles.Add(1)
		done <- struct{}{}
		return reconcile.Result{}, nil
	})
	queue, stop := run("debounced", controller.TypedOptions[reconcile.Request]{
		NewQueue: controllerruntime.NewQueueWith(workqueue.TypedPriorityQueueConfig[reconcile.Request]{
			Debounce: workqueue.Debounce{Window: 200 * time.Millisecond, MaxWait: 2 * time.Second},
		}),
		Reconciler: reconciler,
	})
	for range 10 {
		queue.Add(web)
	}
	<-done
	stop()
	fmt.Println("reconciles:", reconciles.Load())
	// Output:
	// reconciles: 1
}
