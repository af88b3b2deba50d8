package controllerruntime_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/controllerruntime"
)

// TestLinkTellsTheReconcileItIsSuperseded runs a controller whose reconciles take 100 ms in
// steps of 10 ms, asking Superseded(ctx) before each step; an event for the same key arrives
// during the first reconcile, which stops at its next step. The key is reconciled again, in
// full, after it.
func TestLinkTellsTheReconcileItIsSuperseded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var link controllerruntime.Link[reconcile.Request]
		steps := make(chan int, 2)
		r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			n := 0
			for ; n < 10 && !controllerruntime.Superseded(ctx); n++ {
				time.Sleep(10 * time.Millisecond)
			}
			steps <- n
			return reconcile.Result{}, nil
		})
		ctl := start(t, kind{"linked", link.NewQueue}, "linked", 1, link.Reconciler(r))
		ctl.send(job{key: "a"})
		time.Sleep(35 * time.Millisecond)
		ctl.send(job{key: "a"})
		assert.Equal(t, 4, <-steps, "the first reconcile did not stop at its first step after the event")
		assert.Equal(t, 10, <-steps, "the reconcile after it was cut short")
		assert.NoError(t, ctl.stop())
		assert.False(t, controllerruntime.Superseded(context.Background()))
	})
}

func TestLinkRefusesAQueueThatCannotTell(t *testing.T) {
	var link controllerruntime.Link[string]
	theirs := clientgo.NewTypedRateLimitingQueue(clientgo.DefaultTypedControllerRateLimiter[string]())
	defer theirs.ShutDown()
	newQueue := link.Wrap(func(string, clientgo.TypedRateLimiter[string]) clientgo.TypedRateLimitingInterface[string] {
		return theirs
	})
	assert.PanicsWithValue(t, `workqueue: controllerruntime.Link: the queue of controller "c", a *workqueue.rateLimitingType[string], cannot tell whether a request is superseded (it has no Superseded method)`,
		func() { newQueue("c", nil) })
	q := link.NewQueue("c", nil)
	defer q.ShutDown()
	assert.Panics(t, func() { link.NewQueue("c", nil) }, "a Link serving two queues")
}

// TestNewQueueWithDebounces: a controller on a queue with a window reconciles a burst of events
// once, after the burst.
func TestNewQueueWithDebounces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reconciled := make(chan time.Duration, 10)
		start0 := time.Now()
		r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			reconciled <- time.Since(start0)
			return reconcile.Result{}, nil
		})
		newQueue := controllerruntime.NewQueueWith(workqueue.TypedPriorityQueueConfig[reconcile.Request]{
			Debounce: workqueue.Debounce{Window: 100 * time.Millisecond, MaxWait: time.Second}})
		ctl := start(t, kind{"debounced", newQueue}, "debounced", 2, r)
		for range 10 {
			ctl.send(job{key: "a"})
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Second)
		assert.NoError(t, ctl.stop())
		close(reconciled)
		var at []time.Duration
		for d := range reconciled {
			at = append(at, d)
		}
		assert.Equal(t, []time.Duration{190 * time.Millisecond}, at, "ten events 10 ms apart, then 100 ms quiet: one reconcile")
	})
}
