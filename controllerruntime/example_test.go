package controllerruntime_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/actorqueue/workqueue/controllerruntime"
)

// A controller on actorqueue: the NewQueue option is the only change. (Here the controller runs
// without a manager and gets its events from a channel; in a manager, controller.New and
// builder.ControllerManagedBy(mgr).WithOptions take the same options.)
func ExampleNewQueue() {
	reconciled := make(chan string)
	reconciler := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		reconciled <- req.String()
		return reconcile.Result{}, nil
	})
	skip := true // examples may run more than once in a process
	c, err := controller.NewTypedUnmanaged("example", controller.TypedOptions[reconcile.Request]{
		Reconciler:         reconciler,
		NewQueue:           controllerruntime.NewQueue[reconcile.Request],
		SkipNameValidation: &skip,
	})
	if err != nil {
		panic(err)
	}
	events := make(chan event.GenericEvent)
	if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- c.Start(ctx) }()

	events <- event.GenericEvent{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}}
	fmt.Println("reconciled", <-reconciled)
	cancel() // the controller shuts its queue down and waits for its workers
	fmt.Println("stopped:", <-stopped)
	// Output:
	// reconciled default/web
	// stopped: <nil>
}
