package controllerruntime_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/controllerruntime"
)

// A queue for a controller that is fair between namespaces, processes at most two requests of
// one namespace at once, and gives up on a request after five rate-limited requeues. Pass
// newQueue as the controller's NewQueue option.
func ExampleNew_groups() {
	newQueue := func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return controllerruntime.New(workqueue.TypedPriorityQueueConfig[reconcile.Request]{
			Name:        name,
			RateLimiter: rl,
			Group:       func(req reconcile.Request) string { return req.Namespace },
			MaxPerGroup: 2,
			MaxRetries:  5,
			GiveUp: func(req reconcile.Request, attempts int) {
				fmt.Printf("gave up on %s after %d attempts\n", req, attempts)
			},
		})
	}
	q := newQueue("", nil).(priorityqueue.PriorityQueue[reconcile.Request])
	defer q.ShutDown()
	req := func(ns, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	q.AddWithOpts(priorityqueue.AddOpts{}, req("busy", "a"), req("busy", "b"), req("busy", "c"), req("quiet", "x"))
	for range 3 {
		r, _ := q.Get()
		fmt.Println(r) // busy/c waits: busy has two in processing
	}
	fmt.Println(q.Len())
	// Output:
	// busy/a
	// quiet/x
	// busy/b
	// 1
}
