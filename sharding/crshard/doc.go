// Package crshard runs a controller-runtime (sigs.k8s.io/controller-runtime v0.25) controller
// sharded by package sharding:
//
//	s := sharding.New(cfg)
//	mgr.Add(crshard.Runnable(s)) // campaigns for the buckets; no leader election needed
//	shard := crshard.New(s, sharding.QueueConfig[reconcile.Request]{
//		Hash: crshard.HashRequest,
//		Keys: func(bucket int) []reconcile.Request { /* the cache's objects */ },
//	})
//	c, err := controller.NewTyped("pods", mgr, controller.TypedOptions[reconcile.Request]{
//		Reconciler:         shard.Reconciler(r),
//		NewQueue:           shard.NewQueue(controllerruntime.NewQueue[reconcile.Request]),
//		NeedLeaderElection: ptr.To(false),
//	})
//
// It keeps what the controller expects of its queue, and gives the reconciler what it needs
// to stop in time:
//
//   - The queue ([Queue]) implements controller-runtime's priorityqueue.PriorityQueue, so the
//     controller keeps its priority path (AddWithOpts with Result.Priority, the low priority
//     of the initial list's events, GetWithPriority) when the wrapped queue has one, as the
//     priority queue of module github.com/actorqueue/workqueue/controllerruntime does. Over
//     another queue, AddWithOpts falls back to the plain methods, as controller-runtime's own
//     wrapper does.
//   - The reconciler ([Shard.Reconciler]) gets a context that also ends with the key's
//     context from the sharded queue: when less than the drain budget is left of the
//     bucket's hold window (renewals keep moving it on), when the bucket's tenure is
//     interrupted, or when the bucket is lost or handed over. [sharding.Fence] of that
//     context tells it, right before a write, whether and until when the bucket is still
//     held. A reconcile cut short while the bucket stays held is retried by the queue once the
//     renewals catch up, whatever it returned.
//
// Run the manager without leader election for the sharded controllers (or set their
// NeedLeaderElection to false): the buckets' Leases are the election.
//
// A [Cache] shards the watch as well: given to the manager's cache.Options.NewInformer, it
// makes the informers of the kinds it shards cache only the held buckets' objects (package
// shardcache), and its QueueConfig puts each request in its object's bucket:
//
//	sc := crshard.NewCache(s, crshard.CacheOptions{Objects: []client.Object{&corev1.ConfigMap{}}})
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Cache: cache.Options{NewInformer: sc.NewInformer}})
//	shard := crshard.New(s, sc.QueueConfig(&corev1.ConfigMap{}))
package crshard
