package main

import (
	"context"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
	"github.com/actorqueue/workqueue/sharding/shardcache"
)

// queueReplica is the controller the sharding README describes, wired by hand: an informer,
// a sharder, sharding.Wrap around a rate-limiting queue of this project, and workers.
type queueReplica struct {
	o        options
	rec      *record.Writer
	r        *reconciler
	informer cache.SharedIndexInformer
	sharder  *sharding.Sharder // nil when unsharded
	queue    workqueue.TypedRateLimitingInterface[string]
	// contextOf is the context a reconcile of key runs under: the key's, or Background.
	contextOf func(key string) context.Context
	stats     *watchStats
}

func newQueueReplica(o options, rec *record.Writer) (*queueReplica, error) {
	client, err := kubernetes.NewForConfig(o.restConfig())
	if err != nil {
		return nil, err
	}
	r := &queueReplica{o: o, rec: rec, r: o.reconciler(rec), stats: &watchStats{rec: rec}}
	watching, err := kubernetes.NewForConfig(r.stats.measure(o.restConfig()))
	if err != nil {
		return nil, err
	}
	lw := cache.NewListWatchFromClient(watching.CoreV1().RESTClient(), "configmaps", o.namespace, fields.Everything())
	inner := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	switch {
	case o.unsharded:
		r.informer = cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
		r.queue = inner
		r.contextOf = func(string) context.Context { return context.Background() }
	case o.watch == watchWhole:
		r.informer = cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
		r.sharder = newSharder(o, client.CoordinationV1(), rec)
		q := sharding.Wrap(r.sharder, inner, sharding.QueueConfig[string]{Keys: func(int) []string { return r.informer.GetStore().ListKeys() }})
		r.queue, r.contextOf = q, q.Context
	default:
		// The watch of the held buckets only: the informer is the sharder's BucketWatcher,
		// and gives the queue each key's bucket and an acquired bucket's keys.
		r.sharder = newSharder(o, client.CoordinationV1(), rec)
		informer := shardcache.New(r.sharder, lw, &corev1.ConfigMap{}, shardcache.Options{Field: field(o.watch), Resource: "configmaps", Metrics: r.stats})
		q := sharding.Wrap(r.sharder, inner, informer.QueueConfig())
		r.informer, r.queue, r.contextOf = informer, q, q.Context
	}
	_, err = r.informer.AddEventHandler(r.stats.counting(cache.ResourceEventHandlerFuncs{
		AddFunc:    r.enqueue,
		UpdateFunc: func(_, obj any) { r.enqueue(obj) },
		DeleteFunc: r.enqueue,
	}))
	return r, err
}

func (r *queueReplica) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		r.queue.Add(key)
	}
}

// run starts the informer, waits for it to sync, then runs the sharder and the workers until
// ctx is done; then the sharder hands its buckets back before the queue shuts down.
func (r *queueReplica) run(ctx context.Context) {
	informing, stopInforming := context.WithCancel(context.Background())
	defer stopInforming()
	go r.informer.RunWithContext(informing)
	if !cache.WaitForCacheSync(ctx.Done(), r.informer.HasSynced) {
		return
	}
	var workers sync.WaitGroup
	for range r.o.workers {
		workers.Go(r.work)
	}
	r.stats.reportOnSignal(ctx, func() int { return len(r.informer.GetStore().ListKeys()) })
	r.rec.Write(record.Event{Kind: record.Ready})
	if r.sharder != nil {
		r.sharder.Run(ctx) // returns once every bucket is handed back
	} else {
		<-ctx.Done()
	}
	r.queue.ShutDown()
	workers.Wait()
}

// work reconciles keys until the queue shuts down. A reconcile that did not complete is
// retried as after any failure; the sharded queue also re-enqueues a key whose context it
// cut short while the bucket stayed held.
func (r *queueReplica) work() {
	for {
		key, shutdown := r.queue.Get()
		if shutdown {
			return
		}
		if r.reconcile(key) {
			r.queue.Forget(key)
		} else {
			r.queue.AddRateLimited(key)
		}
		r.queue.Done(key)
	}
}

// reconcile reconciles key as the informer's cache has it, and reports whether it completed.
func (r *queueReplica) reconcile(key string) bool {
	obj, exists, err := r.informer.GetStore().GetByKey(key)
	if err != nil || !exists {
		return true // deleted: nothing to do
	}
	cm := obj.(*corev1.ConfigMap)
	gen, _ := strconv.Atoi(cm.Data["gen"])
	return r.r.reconcile(r.contextOf(key), key, gen, cm.ResourceVersion)
}
