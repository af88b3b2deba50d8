package crshard

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/actorqueue/workqueue/controllerruntime"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// running is a Sharder holding its buckets on an in-memory Lease server, until stop.
func running(t *testing.T, buckets int) (s *sharding.Sharder, stop func()) {
	t.Helper()
	s = sharding.New(sharding.Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(),
		Namespace: "ns", Name: "cr", Identity: "a", Buckets: buckets})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		Runnable(s).Start(ctx)
	}()
	time.Sleep(sharding.DefaultRetryPeriod + time.Second) // Run campaigns a RetryPeriod after it starts
	if len(s.Held()) != buckets {
		t.Fatalf("holds %v, want all %d buckets", s.Held(), buckets)
	}
	return s, func() {
		cancel()
		<-ran
	}
}

func request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}}
}

// TestPriorityPath checks that the queue a Shard makes around this project's controller-runtime
// queue is a priorityqueue.PriorityQueue, as controller-runtime's controller asserts, and that
// priorities and delays pass through it, for held buckets only.
func TestPriorityPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, stop := running(t, 2)
		shard := New(s, sharding.QueueConfig[reconcile.Request]{Hash: HashRequest})
		made := shard.NewQueue(controllerruntime.NewQueue[reconcile.Request])("priority", workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
		pq, ok := made.(priorityqueue.PriorityQueue[reconcile.Request])
		if !ok {
			t.Fatalf("NewQueue made a %T, not a priorityqueue.PriorityQueue", made)
		}
		if shard.Queue() != made {
			t.Error("Shard.Queue is not the queue NewQueue made")
		}
		low, high := -1, 10
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &low}, request("low"))
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &high, After: time.Second}, request("later"))
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &high}, request("high"))
		for _, want := range []struct {
			name     string
			priority int
		}{{"high", high}, {"low", low}, {"later", high}} {
			item, priority, _ := pq.GetWithPriority()
			if item.Name != want.name || priority != want.priority {
				t.Errorf("GetWithPriority = %s, %d; want %s, %d", item.Name, priority, want.name, want.priority)
			}
			pq.Done(item)
		}
		stop()
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &high}, request("after"))
		if n := shard.Queue().Dropped(); n != 1 {
			t.Errorf("%d items dropped after the buckets were handed back, want 1", n)
		}
		pq.ShutDown()
	})
}

// TestFallbackWithoutPriorities checks AddWithOpts over a queue without priorities.
func TestFallbackWithoutPriorities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, stop := running(t, 1)
		q := Wrap(s, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]()),
			sharding.QueueConfig[reconcile.Request]{Hash: HashRequest})
		q.AddWithOpts(priorityqueue.AddOpts{After: time.Second}, request("later"))
		q.AddWithOpts(priorityqueue.AddOpts{}, request("now"))
		start := time.Now()
		for _, want := range []string{"now", "later"} {
			item, priority, _ := q.GetWithPriority()
			if item.Name != want || priority != 0 {
				t.Errorf("GetWithPriority = %s, %d; want %s, 0", item.Name, priority, want)
			}
			q.Done(item)
		}
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("the delayed item came after %v, want 1s", waited)
		}
		stop()
		q.ShutDown()
	})
}

// spy is this project's controller-runtime queue, recording what the controller adds with
// options.
type spy struct {
	*controllerruntime.Queue[reconcile.Request]
	mu   sync.Mutex
	opts []priorityqueue.AddOpts
}

func (s *spy) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	s.mu.Lock()
	s.opts = append(s.opts, o)
	s.mu.Unlock()
	s.Queue.AddWithOpts(o, items...)
}

// TestControllerUsesShard runs a controller-runtime controller on a Shard: its reconciler gets
// the controller's context joined with the key's (the Fence, controller-runtime's values; no
// deadline, as renewals move the key's end), and its requeue with a priority reaches the
// wrapped queue through AddWithOpts.
func TestControllerUsesShard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, stop := running(t, 4)
		shard := New(s, sharding.QueueConfig[reconcile.Request]{Hash: HashRequest})
		inner := &spy{}
		type seen struct {
			deadline, fenced bool
			left             time.Duration // until the end of the hold window
			id               types.UID
		}
		seenc := make(chan seen, 2)
		priority := 7
		first := true
		skip := true
		c, err := controller.NewTypedUnmanaged("sharded", controller.TypedOptions[reconcile.Request]{
			SkipNameValidation: &skip,
			NewQueue: shard.NewQueue(func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
				inner.Queue = controllerruntime.NewQueue(name, rl).(*controllerruntime.Queue[reconcile.Request])
				return inner
			}),
			Reconciler: shard.Reconciler(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				_, hasDeadline := ctx.Deadline()
				held, fenced := sharding.Fence(ctx)
				seenc <- seen{deadline: hasDeadline, fenced: fenced, left: time.Until(held), id: controller.ReconcileIDFromContext(ctx)}
				if first {
					first = false
					return reconcile.Result{RequeueAfter: time.Second, Priority: &priority}, nil
				}
				return reconcile.Result{}, nil
			})),
		})
		if err != nil {
			t.Fatal(err)
		}
		events := make(chan event.GenericEvent)
		if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan error)
		go func() { stopped <- c.Start(ctx) }()
		events <- event.GenericEvent{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}}
		for range 2 {
			got := <-seenc
			if got.deadline || !got.fenced || got.id == "" {
				t.Errorf("reconcile context: deadline %v, fenced %v, reconcile ID %q; want no deadline, fenced, an ID", got.deadline, got.fenced, got.id)
			}
			drift := sharding.DefaultMaxClockDrift
			window := time.Duration(float64(sharding.DefaultLeaseDuration) / (1 + drift))
			if budget := window - sharding.DefaultRenewDeadline - sharding.DefaultRetryPeriod; got.left <= budget || got.left > window {
				t.Errorf("hold window ends in %v, want within (the drain budget %v, the window %v]", got.left, budget, window)
			}
		}
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("controller: %v", err)
		}
		inner.mu.Lock()
		requeued := false
		for _, o := range inner.opts {
			requeued = requeued || (o.After == time.Second && o.Priority != nil && *o.Priority == priority)
		}
		inner.mu.Unlock()
		if !requeued {
			t.Errorf("the controller's requeue with priority %d did not reach AddWithOpts: %+v", priority, inner.opts)
		}
		stop()
	})
}

// TestHashRequestIsTheCacheKeys checks that a request lands in the bucket of its object's
// cache key, for a namespaced and for a cluster-scoped object.
func TestHashRequestIsTheCacheKeys(t *testing.T) {
	for _, obj := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "cluster-wide"}},
	} {
		key, err := cache.MetaNamespaceKeyFunc(obj)
		if err != nil {
			t.Fatal(err)
		}
		req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.Namespace, Name: obj.Name}}
		if HashRequest(req) != sharding.HashKey(key) {
			t.Errorf("HashRequest(%v) differs from HashKey(%q)", req, key)
		}
	}
}

func TestBadInputPanics(t *testing.T) {
	s := sharding.New(sharding.Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(),
		Namespace: "ns", Name: "cr", Identity: "a", Buckets: 1})
	shard := New(s, sharding.QueueConfig[string]{})
	newQueue := shard.NewQueue(func(string, workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
		return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	})
	first := newQueue("c", nil)
	defer first.ShutDown()
	for name, f := range map[string]func(){
		"nil Sharder":           func() { New[string](nil, sharding.QueueConfig[string]{}) },
		"nil queue":             func() { Wrap[string](s, nil, sharding.QueueConfig[string]{}) },
		"NewQueue called twice": func() { newQueue("c", nil) },
	} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "sharding: ") || !strings.Contains(msg, name) {
					t.Errorf("%s: panic %q, want a sharding: message saying so", name, msg)
				}
			}()
			f()
		}()
	}
}
