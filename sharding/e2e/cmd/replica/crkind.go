package main

import (
	"context"
	"errors"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/actorqueue/workqueue/controllerruntime"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/crshard"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
	"github.com/actorqueue/workqueue/sharding/shardcache"
)

// errCutShort is what the reconciler returns when it stopped before completing: the
// controller retries the request as after any failure.
var errCutShort = errors.New("reconcile cut short: the bucket's hold is ending")

// runControllerRuntime runs the replica as a sharded controller-runtime controller until ctx
// is done: a manager without leader election (the buckets' Leases are the election), the
// sharder as one of its runnables (crshard.Runnable), and a ConfigMap controller whose queue is
// this project's controller-runtime priority queue wrapped by crshard and whose reconciler gets
// the key's context (Shard.Reconciler). This is all the wiring a sharded controller needs.
func runControllerRuntime(ctx context.Context, o options, rec *record.Writer) error {
	log.SetLogger(klog.NewKlogr())
	stats := &watchStats{rec: rec}
	cfg := o.restConfig()
	cacheOpts := cache.Options{DefaultNamespaces: map[string]cache.Config{o.namespace: {}}}
	var s *sharding.Sharder
	var sharded *crshard.Cache
	if !o.unsharded {
		clientset, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		s = newSharder(o, clientset.CoordinationV1(), rec)
	}
	if o.watch != watchWhole {
		// The ConfigMaps' informer watches the held buckets only (package shardcache).
		sharded = crshard.NewCache(s, crshard.CacheOptions{Objects: []client.Object{&corev1.ConfigMap{}},
			Options: shardcache.Options{Field: field(o.watch), Resource: "configmaps", Metrics: stats}})
		cacheOpts.NewInformer = sharded.NewInformer
	}
	mgr, err := manager.New(stats.measure(cfg), manager.Options{
		LeaderElection:         false,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cacheOpts,
	})
	if err != nil {
		return err
	}
	// The ConfigMaps' informer exists before the manager starts, so that the manager waits for
	// it to sync before it starts the sharder: Keys then lists every object (or, sharded, the
	// informer is the sharder's BucketWatcher from the start).
	informer, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		return err
	}
	if _, err := informer.AddEventHandler(stats.counting(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(any) {}, UpdateFunc: func(any, any) {}, DeleteFunc: func(any) {},
	})); err != nil {
		return err
	}
	stats.reportOnSignal(ctx, func() int {
		// The cache's reader, not the informer's store: a cache of several namespaces has
		// one informer per namespace behind the one GetInformer returns.
		var cached corev1.ConfigMapList
		if err := mgr.GetCache().List(ctx, &cached); err != nil {
			return -1
		}
		return len(cached.Items)
	})

	r := o.reconciler(rec)
	var reconciler reconcile.Reconciler = reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		var cm corev1.ConfigMap
		if err := mgr.GetClient().Get(ctx, req.NamespacedName, &cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		gen, _ := strconv.Atoi(cm.Data["gen"])
		if !r.reconcile(ctx, req.String(), gen, cm.ResourceVersion) {
			return reconcile.Result{}, errCutShort
		}
		return reconcile.Result{}, nil
	})
	opts := controller.TypedOptions[reconcile.Request]{
		MaxConcurrentReconciles: o.workers,
		NeedLeaderElection:      ptr.To(false),
		Reconciler:              reconciler,
		NewQueue:                controllerruntime.NewQueue[reconcile.Request],
	}
	if s != nil {
		if err := mgr.Add(crshard.Runnable(s)); err != nil {
			return err
		}
		queueConfig := sharding.QueueConfig[reconcile.Request]{
			Hash: crshard.HashRequest,
			Keys: func(int) []reconcile.Request { return listRequests(mgr.GetCache(), o.namespace) },
		}
		if sharded != nil {
			queueConfig = sharded.QueueConfig(&corev1.ConfigMap{})
		}
		shard := crshard.New(s, queueConfig)
		opts.Reconciler = shard.Reconciler(reconciler)
		opts.NewQueue = shard.NewQueue(controllerruntime.NewQueue[reconcile.Request])
	}
	c, err := controller.NewTyped("configmaps", mgr, opts)
	if err != nil {
		return err
	}
	if err := c.Watch(source.Kind(mgr.GetCache(), &corev1.ConfigMap{}, &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{})); err != nil {
		return err
	}
	if err := mgr.Add(readyRunnable{rec}); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// listRequests returns a request for each ConfigMap of namespace in the manager's cache.
func listRequests(c cache.Cache, namespace string) []reconcile.Request {
	var list corev1.ConfigMapList
	if err := c.List(context.Background(), &list, client.InNamespace(namespace)); err != nil {
		klog.ErrorS(err, "listing the ConfigMaps of an acquired bucket")
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for _, cm := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&cm)})
	}
	return requests
}

// readyRunnable records Ready once the manager has synced its cache and started the others.
type readyRunnable struct{ rec *record.Writer }

func (r readyRunnable) Start(ctx context.Context) error {
	r.rec.Write(record.Event{Kind: record.Ready})
	<-ctx.Done()
	return nil
}

func (readyRunnable) NeedLeaderElection() bool { return false }
