package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/actorqueue/workqueue/controllerruntime"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/crshard"
)

// TestShardedCacheOwns runs two replicas of a controller-runtime controller built with the
// builder's For and Owns, in this process, on the real API server: it reconciles ConfigMaps,
// sharded by UID in the cache (crshard.Cache), and creates a Secret for each, owned by it and
// cached whole. It checks that every reconcile runs on the replica whose cache holds its
// ConfigMap, and finds it there; that a change of a Secret alone reaches its owner's
// reconcile (through Owns) on that replica; and that each replica caches only its buckets'
// ConfigMaps.
func TestShardedCacheOwns(t *testing.T) {
	needEnv(t)
	ctrl.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard()) // the in-process electors log every acquisition
	cfg := env.cluster.Config("")
	cfg.QPS, cfg.Burst = 500, 1000
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns, objects = "e2e-owns", 24
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range objects {
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)},
			Data: map[string]string{"gen": "1"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	seen := &ownsLog{touched: make(map[string]string)}
	var replicas []*ownsReplica
	for _, id := range []string{"a", "b"} {
		replicas = append(replicas, startOwnsReplica(t, id, ns, seen))
	}
	defer func() {
		for _, r := range replicas {
			r.stop()
		}
	}()
	children := func() error {
		secrets, err := client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(secrets.Items) != objects {
			return fmt.Errorf("%d of %d Secrets", len(secrets.Items), objects)
		}
		return nil
	}
	if err := eventually(60*time.Second, children); err != nil {
		t.Fatalf("every ConfigMap's Secret created: %v", err)
	}
	// Change every Secret alone: Owns must bring each change to its owner's reconcile.
	for i := range objects {
		name := fmt.Sprintf("cm-%02d-owned", i)
		secret, err := client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		secret.StringData = map[string]string{"touch": "1"}
		if _, err := client.CoreV1().Secrets(ns).Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eventually(60*time.Second, func() error {
		seen.mu.Lock()
		defer seen.mu.Unlock()
		for i := range objects {
			if key := fmt.Sprintf("%s/cm-%02d", ns, i); seen.touched[key] != "1" {
				return fmt.Errorf("%s: its Secret's change not reconciled (%q)", key, seen.touched[key])
			}
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
	seen.mu.Lock()
	for _, f := range seen.faults {
		t.Error(f)
	}
	seen.mu.Unlock()
	total := 0
	for _, r := range replicas {
		n := len(r.cache.Informer(&corev1.ConfigMap{}).GetStore().ListKeys())
		total += n
		t.Logf("replica %s holds buckets %v and caches %d of %d ConfigMaps", r.id, r.sharder.Held(), n, objects)
		if n == objects {
			t.Errorf("replica %s caches every ConfigMap", r.id)
		}
	}
	if total != objects {
		t.Errorf("the replicas cache %d ConfigMaps between them; want each of the %d once", total, objects)
	}
}

// ownsLog is what the reconciles of TestShardedCacheOwns saw.
type ownsLog struct {
	mu      sync.Mutex
	touched map[string]string // ConfigMap key → its Secret's "touch", as a reconcile read it
	faults  []string
}

// ownsReplica is one replica of TestShardedCacheOwns' controller.
type ownsReplica struct {
	id      string
	sharder *sharding.Sharder
	cache   *crshard.Cache
	stop    func()
}

func startOwnsReplica(t *testing.T, id, ns string, seen *ownsLog) *ownsReplica {
	t.Helper()
	cfg := env.cluster.Config("")
	cfg.QPS, cfg.Burst = 500, 1000
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &ownsReplica{id: id}
	r.sharder = sharding.New(sharding.Config{Client: clientset.CoordinationV1(), Namespace: ns, Name: "owns", Identity: id, Buckets: 6,
		LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 250 * time.Millisecond})
	r.cache = crshard.NewCache(r.sharder, crshard.CacheOptions{Objects: []client.Object{&corev1.ConfigMap{}}})
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}, NewInformer: r.cache.NewInformer},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(crshard.Runnable(r.sharder)); err != nil {
		t.Fatal(err)
	}
	shard := crshard.New(r.sharder, r.cache.QueueConfig(&corev1.ConfigMap{}))
	reconciler := reconcile.Func(func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
		var cm corev1.ConfigMap
		if err := mgr.GetClient().Get(ctx, req.NamespacedName, &cm); err != nil {
			seen.mu.Lock()
			seen.faults = append(seen.faults, fmt.Sprintf("%s reconciled %s without it in its cache: %v", id, req, err))
			seen.mu.Unlock()
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name + "-owned"}}
		err := mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(secret), secret)
		if apierrors.IsNotFound(err) {
			if err := controllerutil.SetControllerReference(&cm, secret, mgr.GetScheme()); err != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, client.IgnoreAlreadyExists(mgr.GetClient().Create(ctx, secret))
		}
		if err != nil {
			return ctrl.Result{}, err
		}
		seen.mu.Lock()
		seen.touched[req.String()] = string(secret.Data["touch"])
		seen.mu.Unlock()
		return ctrl.Result{}, nil
	})
	err = ctrl.NewControllerManagedBy(mgr).
		Named("owns-" + id).
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		WithOptions(controller.Options{
			NewQueue:                shard.NewQueue(controllerruntime.NewQueue[ctrl.Request]),
			NeedLeaderElection:      ptr.To(false),
			MaxConcurrentReconciles: 4,
			SkipNameValidation:      ptr.To(true),
		}).
		Complete(shard.Reconciler(reconciler))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager %s: %v", id, err)
		}
	}()
	r.stop = func() {
		cancel()
		<-done
	}
	return r
}

// eventually calls cond every 50 ms until it returns nil, or returns its last error after
// timeout.
func eventually(timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
