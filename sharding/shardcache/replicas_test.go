package shardcache

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// replica is a controller of the tests' ConfigMaps: a Sharder, an Informer of its buckets'
// objects, a queue of their keys, and workers that check what they read.
type replica struct {
	id       string
	sharder  *sharding.Sharder
	informer *Informer
	queue    *sharding.Queue[string]
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// reconciles records, for the test, which replica reconciled which key, and what went wrong.
type reconciles struct {
	mu      sync.Mutex
	by      map[string]string // key → the replica that reconciled it last
	missing []string          // reconciles that found their object absent from the cache
}

func startReplica(t *testing.T, leases coordinationv1client.LeasesGetter, srv *server, id string, r *reconciles) *replica {
	t.Helper()
	rep := &replica{id: id}
	rep.sharder = sharding.New(sharding.Config{Client: leases, Namespace: "ns", Name: "cm", Identity: id, Buckets: testBuckets,
		LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond})
	rep.informer = New(rep.sharder, srv, &corev1.ConfigMap{}, Options{Field: srv.field})
	rep.queue = sharding.Wrap(rep.sharder, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		rep.informer.QueueConfig())
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			rep.queue.Add(key)
		}
	}
	rep.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue})
	ctx, stop := context.WithCancel(context.Background())
	informing, stopInforming := context.WithCancel(context.Background())
	rep.stop = stop
	rep.done.Go(func() { rep.informer.RunWithContext(informing) })
	rep.done.Go(func() {
		rep.sharder.Run(ctx) // hands every bucket back, then returns
		rep.queue.ShutDown()
		stopInforming()
	})
	for range 4 {
		rep.done.Go(func() {
			for {
				key, shutdown := rep.queue.Get()
				if shutdown {
					return
				}
				_, exists, _ := rep.informer.GetIndexer().GetByKey(key)
				time.Sleep(10 * time.Millisecond) // the reconcile's work
				r.mu.Lock()
				r.by[key] = id
				if !exists {
					r.missing = append(r.missing, id+" "+key)
				}
				r.mu.Unlock()
				rep.queue.Done(key)
			}
		})
	}
	return rep
}

// TestReplicasShareCaches runs two replicas with sharded caches, by UID and by namespace:
// each caches exactly its buckets' objects, every object is reconciled by the holder of its
// bucket and found in its cache, and when one replica leaves, the other caches and
// reconciles everything.
func TestReplicasShareCaches(t *testing.T) {
	for _, field := range []Field{ByUID, ByNamespace} {
		t.Run(string(field), func(t *testing.T) { synctest.Test(t, func(t *testing.T) { shareCaches(t, field) }) })
	}
}

func shareCaches(t *testing.T, field Field) {
	srv := newServer(field, testBuckets, true)
	srv.populate(120)
	leases := leasetest.NewServer()
	r := &reconciles{by: make(map[string]string)}
	a := startReplica(t, leases.Clientset(nil).CoordinationV1(), srv, "a", r)
	b := startReplica(t, leases.Clientset(nil).CoordinationV1(), srv, "b", r)
	time.Sleep(10 * time.Second)
	synctest.Wait()

	all := srv.keysIn(0, 1, 2, 3, 4, 5)
	for _, rep := range []*replica{a, b} {
		held := rep.sharder.Held()
		if len(held) != testBuckets/2 {
			t.Errorf("%s holds %v; want half the buckets", rep.id, held)
		}
		if want := srv.keysIn(held...); !maps.Equal(keysOf(rep.informer), want) {
			t.Errorf("%s caches %d objects; want the %d of its buckets %v", rep.id, len(keysOf(rep.informer)), len(want), held)
		}
	}
	r.mu.Lock()
	if len(r.by) != len(all) {
		t.Errorf("%d of %d keys reconciled", len(r.by), len(all))
	}
	r.by = make(map[string]string)
	r.mu.Unlock()

	// b leaves: a takes its buckets over, caches their objects and reconciles their keys.
	for i := range 120 {
		srv.put(fmt.Sprintf("ns-%d", i%7), fmt.Sprintf("cm-%d", i), testUID(i), "1")
	}
	b.stop()
	b.done.Wait()
	time.Sleep(10 * time.Second)
	synctest.Wait()
	if got := keysOf(a.informer); !maps.Equal(got, all) {
		t.Errorf("after b left, a caches %d objects; want all %d", len(got), len(all))
	}
	r.mu.Lock()
	if len(r.by) != len(all) {
		t.Errorf("after the change: %d of %d keys reconciled", len(r.by), len(all))
	}
	if len(r.missing) > 0 {
		t.Errorf("reconciles that found no object in the cache: %v", r.missing)
	}
	r.mu.Unlock()
	a.stop()
	a.done.Wait()
}

// TestInformerRegisteredLate checks an Informer made while its Sharder holds buckets already:
// it learns of them from Sharder.Watch, starts watching them when it runs, and reports
// HasSynced only once they have synced.
func TestInformerRegisteredLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, true)
		srv.populate(60)
		s := sharding.New(sharding.Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(), Namespace: "ns", Name: "late",
			Identity: "a", Buckets: testBuckets, LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond})
		ctx, stop := context.WithCancel(context.Background())
		ran := make(chan struct{})
		go func() {
			defer close(ran)
			s.Run(ctx)
		}()
		defer func() {
			stop()
			<-ran
		}()
		time.Sleep(5 * time.Second)
		if len(s.Held()) != testBuckets {
			t.Fatalf("holds %v; want every bucket", s.Held())
		}
		srv.gate = make(chan struct{})
		inf := New(s, srv, &corev1.ConfigMap{}, Options{})
		running(t, inf)
		synctest.Wait()
		if inf.HasSynced() {
			t.Fatal("HasSynced before the held buckets' lists were answered")
		}
		close(srv.gate)
		synctest.Wait()
		if !inf.HasSynced() {
			t.Fatal("not synced once the held buckets' lists were answered")
		}
		if want := srv.keysIn(0, 1, 2, 3, 4, 5); !maps.Equal(keysOf(inf), want) {
			t.Errorf("%d objects cached; want all %d", len(keysOf(inf)), len(want))
		}
	})
}
