package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
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
	"github.com/actorqueue/workqueue/sharding/shardcache"
)

// TestShardedCacheOwns runs two replicas of a controller-runtime controller built with the
// builder's For and Owns, in this process, on the real API server: it reconciles ConfigMaps
// and creates a Secret for each, owned by it. By UID, the cache (crshard.Cache) shards the
// ConfigMaps of one namespace and keeps the Secrets whole; by namespace, it shards both
// kinds over ConfigMaps spread in six namespaces, one per bucket, and caches the whole
// cluster's. It checks that every reconcile runs on the replica whose cache holds its
// ConfigMap, and finds it there; that a change of a Secret alone reaches its owner's
// reconcile (through Owns) on that replica; and that the replicas cache the test's ConfigMaps
// once between them (and, by namespace, its Secrets), each only its share.
func TestShardedCacheOwns(t *testing.T) {
	needEnv(t)
	ctrl.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard()) // the in-process electors log every acquisition
	for _, field := range []shardcache.Field{shardcache.ByUID, shardcache.ByNamespace} {
		t.Run(string(field), func(t *testing.T) { shardedCacheOwns(t, field) })
	}
}

// ownsBuckets is the number of buckets of TestShardedCacheOwns.
const ownsBuckets = 6

func shardedCacheOwns(t *testing.T, field shardcache.Field) {
	cfg := env.cluster.Config("")
	cfg.QPS, cfg.Burst = 500, 1000
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	leases := "e2e-owns-uid"
	namespaces := []string{leases}
	if field == shardcache.ByNamespace {
		// One namespace in each bucket: names that differ at their start, where FNV-1a's
		// high bits depend on them.
		leases, namespaces = "e2e-owns-namespace", make([]string, ownsBuckets)
		for i, found := 0, 0; found < ownsBuckets; i++ {
			name := fmt.Sprintf("%d-owns", i)
			if b := sharding.BucketOf(sharding.Hash(name), ownsBuckets); namespaces[b] == "" {
				namespaces[b], found = name, found+1
			}
		}
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leases}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	for _, ns := range namespaces {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for i := range 24 / len(namespaces) {
			name := fmt.Sprintf("cm-%02d", i)
			if _, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name},
				Data: map[string]string{"gen": "1"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, ns+"/"+name)
		}
	}
	ours := func(namespace string) bool { return slices.Contains(namespaces, namespace) }

	seen := &ownsLog{touched: make(map[string]string)}
	var replicas []*ownsReplica
	for _, id := range []string{"a", "b"} {
		replicas = append(replicas, startOwnsReplica(t, id, field, leases, namespaces, seen))
	}
	defer func() {
		for _, r := range replicas {
			r.stop()
		}
	}()
	if err := eventually(60*time.Second, func() error {
		for _, key := range keys {
			namespace, name, _ := strings.Cut(key, "/")
			if _, err := kube.CoreV1().Secrets(namespace).Get(ctx, name+"-owned", metav1.GetOptions{}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("every ConfigMap's Secret created: %v", err)
	}
	// Change every Secret alone: Owns must bring each change to its owner's reconcile.
	for _, key := range keys {
		namespace, name, _ := strings.Cut(key, "/")
		secret, err := kube.CoreV1().Secrets(namespace).Get(ctx, name+"-owned", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		secret.StringData = map[string]string{"touch": "1"}
		if _, err := kube.CoreV1().Secrets(namespace).Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eventually(60*time.Second, func() error {
		seen.mu.Lock()
		defer seen.mu.Unlock()
		for _, key := range keys {
			if seen.touched[key] != "1" {
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
	kinds := []client.Object{&corev1.ConfigMap{}}
	if field == shardcache.ByNamespace {
		kinds = append(kinds, &corev1.Secret{})
	}
	// Each replica caches its share, the two every object once, once no bucket is moving
	// (replicas that start together hand buckets on for a few seconds).
	shares := func() (string, error) {
		var report []string
		for _, kind := range kinds {
			total := 0
			for _, r := range replicas {
				n := 0
				for _, key := range r.cache.Informer(kind).GetStore().ListKeys() {
					if namespace, _, _ := strings.Cut(key, "/"); ours(namespace) {
						n++
					}
				}
				total += n
				report = append(report, fmt.Sprintf("%s holds %v and caches %d of the %d %Ts", r.id, r.sharder.Held(), n, len(keys), kind))
				if n == len(keys) {
					return strings.Join(report, "; "), fmt.Errorf("replica %s caches every %T", r.id, kind)
				}
			}
			if total != len(keys) {
				return strings.Join(report, "; "), fmt.Errorf("the replicas cache %d %Ts between them; want each of the %d once", total, kind, len(keys))
			}
		}
		return strings.Join(report, "; "), nil
	}
	var report string
	if err := eventually(30*time.Second, func() (err error) { report, err = shares(); return err }); err != nil {
		t.Errorf("%v: %s", err, report)
	}
	t.Log(report)
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

func startOwnsReplica(t *testing.T, id string, field shardcache.Field, leases string, namespaces []string, seen *ownsLog) *ownsReplica {
	t.Helper()
	cfg := env.cluster.Config("")
	cfg.QPS, cfg.Burst = 500, 1000
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &ownsReplica{id: id}
	r.sharder = sharding.New(sharding.Config{Client: clientset.CoordinationV1(), Namespace: leases, Name: "owns", Identity: id, Buckets: ownsBuckets,
		LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond})
	// By UID the Secrets stay whole: a child's UID is not its owner's bucket. By namespace,
	// both kinds share their namespace's bucket, in a cache of the whole cluster.
	sharded := []client.Object{&corev1.ConfigMap{}}
	cacheOpts := cache.Options{DefaultNamespaces: map[string]cache.Config{leases: {}}}
	if field == shardcache.ByNamespace {
		sharded = append(sharded, &corev1.Secret{})
		cacheOpts.DefaultNamespaces = nil
	}
	r.cache = crshard.NewCache(r.sharder, crshard.CacheOptions{Objects: sharded, Options: shardcache.Options{Field: field}})
	cacheOpts.NewInformer = r.cache.NewInformer
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cacheOpts,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	for _, kind := range sharded {
		if _, err := mgr.GetCache().GetInformer(ctx, kind); err != nil {
			t.Fatal(err)
		}
	}
	if err := mgr.Add(crshard.Runnable(r.sharder)); err != nil {
		t.Fatal(err)
	}
	shard := crshard.New(r.sharder, r.cache.QueueConfig(&corev1.ConfigMap{}))
	reconciler := reconcile.Func(func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
		if !slices.Contains(namespaces, req.Namespace) {
			return ctrl.Result{}, nil // another test's ConfigMap, in a cache of the whole cluster
		}
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
