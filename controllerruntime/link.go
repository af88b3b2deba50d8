package controllerruntime

import (
	"context"
	"fmt"
	"sync/atomic"

	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/actorqueue/workqueue"
)

// Link joins a controller's queue to its reconciler, so that a reconcile can ask, through its
// context alone, whether its request was added again since the queue handed it out
// ([Superseded]): a newer change waits, and the queue will hand the request out again after
// this reconcile, so a long reconcile may stop early or skip a write already stale. One option
// and one wrapper do it:
//
//	var link controllerruntime.Link[reconcile.Request]
//	err := ctrl.NewControllerManagedBy(mgr).
//		For(&appsv1.Deployment{}).
//		WithOptions(controller.Options{NewQueue: link.NewQueue}).
//		Complete(link.Reconciler(r))
//
// The zero value is ready to use; a Link serves one controller. Its methods are safe for
// simultaneous use by multiple goroutines.
type Link[T comparable] struct {
	queue atomic.Pointer[workqueue.TypedSuperseder[T]]
}

// NewQueue has the type of controller-runtime's TypedOptions[T].NewQueue: it makes the queue
// [NewQueue] makes, and links it. The controller calls it once, when it starts; it panics if
// called again, as the Link would then serve two queues.
func (l *Link[T]) NewQueue(controllerName string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
	return l.Wrap(NewQueue[T])(controllerName, rateLimiter)
}

// Wrap returns a function for TypedOptions[T].NewQueue that makes the queue with newQueue (as
// [NewQueueWith] configures one, or a wrapper around one) and links it. The queue must
// implement workqueue.TypedSuperseder, as every queue of this project does; the function panics
// with a "workqueue:" message if it does not, or if it is called twice.
func (l *Link[T]) Wrap(newQueue func(controllerName string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T]) func(controllerName string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
	return func(name string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
		q := newQueue(name, rateLimiter)
		s, ok := q.(workqueue.TypedSuperseder[T])
		if !ok {
			panic(fmt.Sprintf("workqueue: controllerruntime.Link: the queue of controller %q, a %T, cannot tell whether a request is superseded (it has no Superseded method)", name, q))
		}
		if !l.queue.CompareAndSwap(nil, &s) {
			panic("workqueue: controllerruntime.Link: NewQueue called twice; a Link serves one controller")
		}
		return q
	}
}

// Reconciler wraps r so that the context of each Reconcile answers [Superseded] for its
// request. A request reconciled before the Link's queue exists (a reconciler called directly,
// in a test) is never superseded.
func (l *Link[T]) Reconciler(r reconcile.TypedReconciler[T]) reconcile.TypedReconciler[T] {
	return reconcile.TypedFunc[T](func(ctx context.Context, req T) (reconcile.Result, error) {
		if q := l.queue.Load(); q != nil {
			ctx = context.WithValue(ctx, supersededKey{}, func() bool { return (*q).Superseded(req) })
		}
		return r.Reconcile(ctx, req)
	})
}

// supersededKey is the context key of a linked reconcile's Superseded.
type supersededKey struct{}

// Superseded reports whether the request of the reconcile whose context ctx is (or derives from)
// was added again since the queue handed it out: the queue will hand it out again once this
// reconcile returns. It is false for a context no [Link]'s reconciler made. It is cheap (a few
// atomic reads in the usual case; see workqueue.TypedSuperseder) and may be called at any moment
// of the reconcile, from any goroutine.
func Superseded(ctx context.Context) bool {
	f, ok := ctx.Value(supersededKey{}).(func() bool)
	return ok && f()
}

// NewQueueWith returns a function for TypedOptions[T].NewQueue that makes the queue [New] makes
// from config, with the controller's name (for its metrics) and rate limiter: how a controller
// sets this project's options, a debounce window say:
//
//	controller.Options{NewQueue: controllerruntime.NewQueueWith(workqueue.TypedPriorityQueueConfig[reconcile.Request]{
//		Debounce: workqueue.Debounce{Window: 100 * time.Millisecond, MaxWait: time.Second},
//	})}
//
// config's Name and RateLimiter are set by the controller's; New's panics apply.
func NewQueueWith[T comparable](config workqueue.TypedPriorityQueueConfig[T]) func(controllerName string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
	return func(name string, rateLimiter clientgo.TypedRateLimiter[T]) clientgo.TypedRateLimitingInterface[T] {
		c := config
		c.Name, c.RateLimiter = name, rateLimiter
		return New(c)
	}
}
