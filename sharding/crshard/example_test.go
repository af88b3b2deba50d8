package crshard_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/actorqueue/workqueue/controllerruntime"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/crshard"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// Three replicas of a controller-runtime controller share 8 buckets of ConfigMaps through
// Leases (here on an in-memory Lease server; on a cluster, Client is a clientset's
// CoordinationV1()). Every replica sees every event, as its informer would, and reconciles
// only the keys of its buckets, each under a context that ends before its bucket could move.
// In a manager, controller.NewTyped takes the same options, and mgr.Add(crshard.Runnable(s))
// runs the sharder.
func Example() {
	api := leasetest.NewServer()
	var names []string
	for i := range 30 {
		names = append(names, fmt.Sprintf("config-%d", i))
	}
	cache := func(int) []reconcile.Request { // the informer cache's keys: every object's
		var all []reconcile.Request
		for _, name := range names {
			all = append(all, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}})
		}
		return all
	}

	var mu sync.Mutex
	reconciling := make(map[string]string) // key → the replica reconciling it
	reconciled := make(map[string]bool)
	overlaps := 0
	allDone := make(chan struct{})

	ctx, stop := context.WithCancel(context.Background())
	var replicas sync.WaitGroup
	var feeds []chan event.GenericEvent
	for _, id := range []string{"replica-a", "replica-b", "replica-c"} {
		s := sharding.New(sharding.Config{
			Client:        api.Clientset(nil).CoordinationV1(),
			Namespace:     "default",
			Name:          "configmaps",
			Identity:      id,
			Buckets:       8,
			LeaseDuration: 2 * time.Second,
			RenewDeadline: 1200 * time.Millisecond,
			RetryPeriod:   250 * time.Millisecond,
		})
		shard := crshard.New(s, sharding.QueueConfig[reconcile.Request]{Hash: crshard.HashRequest, Keys: cache})
		reconciler := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			mu.Lock()
			if _, busy := reconciling[req.String()]; busy {
				overlaps++
			}
			reconciling[req.String()] = id
			mu.Unlock()

			// ... read and compute under ctx, which ends when this replica must stop;
			// then, right before writing, make sure the bucket is still held for a while:
			deadline, held := sharding.Fence(ctx)
			mayWrite := held && time.Until(deadline) > 100*time.Millisecond
			if mayWrite {
				time.Sleep(5 * time.Millisecond) // the write
			}

			mu.Lock()
			defer mu.Unlock()
			delete(reconciling, req.String())
			if !mayWrite {
				// Retried here while the bucket is held; otherwise its next holder lists it.
				return reconcile.Result{RequeueAfter: 50 * time.Millisecond}, nil
			}
			if !reconciled[req.String()] {
				reconciled[req.String()] = true
				if len(reconciled) == len(names) {
					close(allDone)
				}
			}
			return reconcile.Result{}, nil
		})
		skip := true // the three controllers share a process, and so a name registry
		c, err := controller.NewTypedUnmanaged("configmaps-"+id, controller.TypedOptions[reconcile.Request]{
			Reconciler:         shard.Reconciler(reconciler),
			NewQueue:           shard.NewQueue(controllerruntime.NewQueue[reconcile.Request]),
			SkipNameValidation: &skip,
		})
		if err != nil {
			panic(err)
		}
		events := make(chan event.GenericEvent)
		feeds = append(feeds, events)
		if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
			panic(err)
		}
		replicas.Go(func() { _ = crshard.Runnable(s).Start(ctx) })
		replicas.Go(func() { _ = c.Start(ctx) })
	}
	for _, name := range names {
		for _, events := range feeds {
			events <- event.GenericEvent{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}}
		}
	}
	<-allDone
	stop() // each replica drains and releases its buckets, and its controller stops
	replicas.Wait()
	fmt.Printf("%d ConfigMaps reconciled, %d of them on two replicas at once\n", len(reconciled), overlaps)
	// Output:
	// 30 ConfigMaps reconciled, 0 of them on two replicas at once
}
