package crshard

import (
	"context"
	"errors"
	"sync/atomic"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	aq "github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding"
)

// Queue is a [sharding.Queue] that implements controller-runtime's
// priorityqueue.PriorityQueue[T]. Every method but AddWithOpts is the embedded Queue's. It is
// safe for simultaneous use by multiple goroutines.
type Queue[T comparable] struct {
	*sharding.Queue[T]
	inner workqueue.TypedRateLimitingInterface[T]
}

var _ priorityqueue.PriorityQueue[string] = (*Queue[string])(nil)

// A Queue tells a reconcile that its request is superseded (sharding.Queue.Superseded), so
// that the controllerruntime module's Link can wrap it and answer Superseded(ctx).
var _ aq.TypedSuperseder[string] = (*Queue[string])(nil)

// Wrap returns a Queue around inner that processes only the keys of the buckets s holds; see
// [sharding.Wrap], whose panics it shares.
func Wrap[T comparable](s *sharding.Sharder, inner workqueue.TypedRateLimitingInterface[T], cfg sharding.QueueConfig[T]) *Queue[T] {
	if inner == nil {
		panic("sharding: crshard.Wrap: nil queue")
	}
	return &Queue[T]{Queue: sharding.Wrap[T](s, inner, cfg), inner: inner}
}

// AddWithOpts adds the items whose bucket is held with controller-runtime's options, and drops
// the others as Add does. If the wrapped queue is a controller-runtime priority queue, it gets
// the options as they are; otherwise RateLimited adds with AddRateLimited, After with AddAfter,
// and the priority is ignored.
func (q *Queue[T]) AddWithOpts(o priorityqueue.AddOpts, items ...T) {
	if pq, ok := q.inner.(priorityqueue.PriorityQueue[T]); ok {
		q.AddWith(func(items ...T) { pq.AddWithOpts(o, items...) }, items...)
		return
	}
	for _, item := range items {
		switch {
		case o.RateLimited:
			q.AddRateLimited(item)
		case o.After > 0:
			q.AddAfter(item, o.After)
		default:
			q.Add(item)
		}
	}
}

// Shard joins one controller to a Sharder: its queue (NewQueue) and its reconciler
// (Reconciler). A Shard serves one controller; a Sharder may serve several. Its methods are
// safe for simultaneous use by multiple goroutines.
type Shard[T comparable] struct {
	sharder *sharding.Sharder
	cfg     sharding.QueueConfig[T]
	made    atomic.Bool // NewQueue's function has been called
	queue   atomic.Pointer[Queue[T]]
}

// New returns a Shard whose queue will hold the keys of the buckets s holds, as cfg says
// (see [sharding.QueueConfig]). It panics with a "sharding:" message if s is nil.
func New[T comparable](s *sharding.Sharder, cfg sharding.QueueConfig[T]) *Shard[T] {
	if s == nil {
		panic("sharding: crshard.New: nil Sharder")
	}
	return &Shard[T]{sharder: s, cfg: cfg}
}

// NewQueue returns a function for the controller's TypedOptions.NewQueue: it makes the queue
// with newInner, e.g. controllerruntime.NewQueue of this project's priority queue, and wraps
// it ([Wrap]). The controller calls it once, when it starts; it panics if called again, as
// the Shard would then serve two queues.
func (sh *Shard[T]) NewQueue(newInner func(controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T]) func(controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	return func(name string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
		if sh.made.Swap(true) {
			panic("sharding: crshard: Shard.NewQueue called twice; a Shard serves one controller")
		}
		q := Wrap(sh.sharder, newInner(name, rateLimiter), sh.cfg)
		sh.queue.Store(q)
		return q
	}
}

// Queue returns the queue NewQueue made, or nil before the controller has started.
func (sh *Shard[T]) Queue() *Queue[T] { return sh.queue.Load() }

// errNotStarted is what a reconciler wrapped by a Shard returns for a request that did not
// come from its queue.
var errNotStarted = errors.New("sharding: crshard: reconcile before the Shard's queue was made")

// Reconciler wraps r so that the context of each Reconcile also ends when the key's context
// from the queue ends ([sharding.Queue.Context]): when the bucket's renewals fall behind by
// more than the drain budget, when the bucket's tenure is interrupted, or when the bucket is
// lost or handed over. [sharding.Fence] works on it. A request that the queue has not
// handed out gets a cancelled context, and before the queue exists, an error.
func (sh *Shard[T]) Reconciler(r reconcile.TypedReconciler[T]) reconcile.TypedReconciler[T] {
	return reconcile.TypedFunc[T](func(ctx context.Context, item T) (reconcile.Result, error) {
		q := sh.queue.Load()
		if q == nil {
			return reconcile.Result{}, errNotStarted
		}
		joined, cancel := join(ctx, q.Context(item))
		defer cancel()
		return r.Reconcile(joined, item)
	})
}

// join returns a context derived from parent that also ends when key ends, and whose values
// are parent's and then key's. (A key's context has no deadline: renewals move its end.)
func join(parent, key context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(key, cancel)
	return joined{Context: ctx, key: key}, func() {
		stop()
		cancel()
	}
}

// joined is a context with the values of a second one after its own.
type joined struct {
	context.Context
	key context.Context
}

func (j joined) Value(k any) any {
	if v := j.Context.Value(k); v != nil {
		return v
	}
	return j.key.Value(k)
}

// Runnable returns s as a manager.Runnable that needs no leader election: add it to the
// manager (mgr.Add) so that s campaigns for its buckets while the manager runs, and hands them
// back when it stops. Start returns nil once they are handed back.
func Runnable(s *sharding.Sharder) manager.Runnable { return runnable{s} }

type runnable struct{ s *sharding.Sharder }

func (r runnable) Start(ctx context.Context) error {
	r.s.Run(ctx)
	return nil
}

func (runnable) NeedLeaderElection() bool { return false }

// HashRequest hashes a reconcile.Request as sharding.HashKey hashes the key that client-go's
// cache.MetaNamespaceKeyFunc gives its object ("namespace/name", or "name" for a
// cluster-scoped object), so that both put an object in the same bucket.
func HashRequest(r reconcile.Request) uint64 {
	if r.Namespace == "" {
		return sharding.HashKey(r.Name)
	}
	return sharding.HashKey(r.Namespace + "/" + r.Name)
}
