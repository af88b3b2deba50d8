package main

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/actorqueue/workqueue/controllerruntime"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/crshard"
)

// The buckets' Leases, short so that the example runs in seconds (client-go's defaults are
// 15 s, 10 s and 2 s). With a RetryPeriod under a second a Lease's record changes once a
// second, so RenewDeadline must exceed 1 s by two round trips; LeaseDuration/1.1 must then
// exceed RenewDeadline+RetryPeriod, leaving a drain budget of 977 ms here.
const (
	leaseDuration = 3 * time.Second
	renewDeadline = 1500 * time.Millisecond
	retryPeriod   = 250 * time.Millisecond
)

// Each bucket's elector reads its Lease every RetryPeriod, and writes it too while it holds
// the bucket: 50 to 100 requests a second here, far above client-go's default limit of 5 a
// second, which would make the renewals late.
const (
	clientQPS   = 200
	clientBurst = 400
)

// writeTimeout bounds a reconcile's write: it writes only if its bucket is held for longer.
const writeTimeout = 250 * time.Millisecond

// runReplica runs one replica until SIGTERM or SIGINT: a controller-runtime manager without
// leader election (the buckets' Leases are the election) whose cache holds only the ConfigMaps
// of the buckets this replica holds (crshard.Cache), the sharder as one of its runnables, and a
// ConfigMap controller whose queue is this project's controller-runtime priority queue,
// sharded by crshard. On the signal, the sharder hands every bucket back before it returns.
func runReplica(f replicaFlags) error {
	ctrl.SetLogger(klog.NewKlogr())
	cfg := &rest.Config{Host: f.server, BearerToken: f.token, TLSClientConfig: rest.TLSClientConfig{CAFile: f.ca},
		QPS: clientQPS, Burst: clientBurst} // in a cluster: ctrl.GetConfigOrDie(), with the same QPS
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	sharder := sharding.New(sharding.Config{
		Client:        clientset.CoordinationV1(),
		Namespace:     f.namespace,
		Name:          leaseName,
		Identity:      f.name, // unique among the replicas: the pod's name in a Deployment
		Buckets:       buckets,
		LeaseDuration: leaseDuration,
		RenewDeadline: renewDeadline,
		RetryPeriod:   retryPeriod,
		Metrics:       printHandovers{},
	})
	// The cache holds only the ConfigMaps of the buckets this replica holds: their informer
	// lists and watches each held bucket's hash range of UIDs (the API server needs the
	// ShardedListAndWatch feature gate; without it the informer filters on its own).
	sharded := crshard.NewCache(sharder, crshard.CacheOptions{Objects: []client.Object{&corev1.ConfigMap{}}})
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics: metricsserver.Options{BindAddress: "0"}, // three replicas share this machine
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{f.namespace: {}},
			NewInformer:       sharded.NewInformer,
		},
	})
	if err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	// Ask for the informer before the manager starts, so that it watches every bucket the
	// sharder acquires from the start.
	if _, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
		return err
	}
	if err := mgr.Add(crshard.Runnable(sharder)); err != nil {
		return err
	}
	// The queue puts each request in its ConfigMap's bucket, and lists a bucket just acquired
	// from its synced cache.
	shard := crshard.New(sharder, sharded.QueueConfig(&corev1.ConfigMap{}))
	err = ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		WithOptions(controller.Options{
			NewQueue:           shard.NewQueue(controllerruntime.NewQueue[ctrl.Request]),
			NeedLeaderElection: ptr.To(false),
		}).
		Complete(shard.Reconciler(&reconciler{client: mgr.GetClient(), identity: f.name}))
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// errNotHeld is what a reconcile returns when its bucket is not held for long enough to
// write: the controller retries it here if the bucket stays, and its next holder lists it if
// not.
var errNotHeld = errors.New("not writing: the bucket is not held for long enough")

// reconciler records on each ConfigMap which replica reconciled which generation of it.
type reconciler struct {
	client   client.Client
	identity string
}

// Reconcile runs under the key's context, which crshard joined to the controller's: it ends
// when this replica must stop working on the key, and sharding.Fence reads, by the clock, until
// when its bucket is held. The write checks the fence right before it, is bounded by what is
// left, and is conditional on the resourceVersion read.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Annotations[annotationGen] == cm.Data[genKey] {
		return ctrl.Result{}, nil // this generation is reconciled already, maybe by another replica
	}
	deadline, held := sharding.Fence(ctx)
	if !held || time.Until(deadline) < writeTimeout {
		return ctrl.Result{}, errNotHeld
	}
	write, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if cm.Annotations == nil {
		cm.Annotations = make(map[string]string)
	}
	cm.Annotations[annotationBy] = r.identity
	cm.Annotations[annotationGen] = cm.Data[genKey]
	return ctrl.Result{}, r.client.Update(write, &cm)
}
