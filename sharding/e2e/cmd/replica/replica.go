package main

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// The sharder renews each bucket's Lease every RetryPeriod: 48 writes a second with 12 buckets
// and 250 ms, far above client-go's default of 5 queries a second, whose throttling would
// delay renewals on its own. The tests slow requests down on purpose, with a proxy.
const (
	clientQPS   = 500
	clientBurst = 1000
)

// replica is the running controller: informer, sharder, queue and workers.
type replica struct {
	o        options
	rec      *record.Writer
	informer cache.SharedIndexInformer
	sharder  *sharding.Sharder // nil when unsharded
	queue    workqueue.TypedRateLimitingInterface[string]
	// contextOf is the context a reconcile of key runs under: the bucket's, or Background.
	contextOf func(key string) context.Context
}

func newReplica(o options, rec *record.Writer) (*replica, error) {
	cfg := &rest.Config{
		Host:            o.server,
		BearerToken:     o.token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: o.ca},
		QPS:             clientQPS,
		Burst:           clientBurst,
		UserAgent:       "e2e-replica/" + o.id,
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	r := &replica{o: o, rec: rec}
	r.informer = cache.NewSharedIndexInformer(
		cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "configmaps", o.namespace, fields.Everything()),
		&corev1.ConfigMap{}, 0, cache.Indexers{})
	inner := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	if o.unsharded {
		r.queue = inner
		r.contextOf = func(string) context.Context { return context.Background() }
	} else {
		metrics := &recordMetrics{rec: rec}
		cfg := o.config()
		cfg.Client = client.CoordinationV1()
		cfg.Metrics = metrics
		r.sharder = sharding.New(cfg)
		metrics.sharder.Store(r.sharder)
		q := sharding.Wrap(r.sharder, inner, sharding.QueueConfig[string]{Keys: func(int) []string { return r.informer.GetStore().ListKeys() }})
		r.queue, r.contextOf = q, q.Context
	}
	_, err = r.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    r.enqueue,
		UpdateFunc: func(_, obj any) { r.enqueue(obj) },
		DeleteFunc: r.enqueue,
	})
	return r, err
}

func (r *replica) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		r.queue.Add(key)
	}
}

// run starts the informer, waits for it to sync, then runs the sharder and the workers until
// ctx is done; then the sharder hands its buckets back before the queue shuts down.
func (r *replica) run(ctx context.Context) {
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
	r.rec.Write(record.Event{Kind: record.Ready})
	if r.sharder != nil {
		r.sharder.Run(ctx) // returns once every bucket is handed back
	} else {
		<-ctx.Done()
	}
	r.queue.ShutDown()
	workers.Wait()
}

// work reconciles keys until the queue shuts down.
func (r *replica) work() {
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

// reconcile works on key for -work, or until its context is done and then for -stop-latency,
// as a reconcile that honours its context but takes a moment to stop would. It reports
// whether it completed. Its interval, recorded, lies within the key's Get and Done.
func (r *replica) reconcile(key string) bool {
	obj, exists, err := r.informer.GetStore().GetByKey(key)
	if err != nil || !exists {
		return true // deleted: nothing to do
	}
	cm := obj.(*corev1.ConfigMap)
	gen, _ := strconv.Atoi(cm.Data["gen"])
	ctx := r.contextOf(key)
	r.rec.Write(record.Event{Kind: record.Start, Key: key, Gen: gen, RV: cm.ResourceVersion})
	work := time.NewTimer(r.o.work)
	defer work.Stop()
	cancelled := false
	select {
	case <-work.C:
	case <-ctx.Done():
		cancelled = true
		time.Sleep(r.o.stopLatency) // the reconcile's own way out: part of its interval
	}
	r.rec.Write(record.Event{Kind: record.End, Key: key, Gen: gen, RV: cm.ResourceVersion, Cancelled: cancelled})
	return !cancelled
}

// recordMetrics writes the sharder's measurements to the record.
type recordMetrics struct {
	rec     *record.Writer
	sharder atomic.Pointer[sharding.Sharder]
}

// BucketsHeld records the buckets held. The sharder calls it under its lock after each change,
// so the events come in the order of the changes.
func (m *recordMetrics) BucketsHeld(int) {
	if s := m.sharder.Load(); s != nil {
		m.rec.Write(record.Event{Kind: record.Held, Buckets: s.Held()})
	}
}

func (m *recordMetrics) KeyDropped() {}

func (m *recordMetrics) HandedOver(h sharding.Handover) {
	m.rec.Write(record.Event{Kind: record.HandedOver, Bucket: h.Bucket, Cause: h.Cause.String(), Drain: h.Drain, Overran: h.Overran})
}

var _ sharding.Metrics = (*recordMetrics)(nil)
