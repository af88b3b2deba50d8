package controllers

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	clientgo "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	actorqueue "github.com/actorqueue/workqueue"
)

// The shape of the controller-runtime scenario.
const (
	runtimeKeys        = 100
	generations        = 3 // events sent per key, each announcing a newer generation
	runtimeConcurrency = 4
	requeueAfter       = 5 * time.Millisecond
)

// generational is a reconciler of keys whose wanted state is a generation number, which the
// test raises before each event it sends. A reconcile fails on purpose failures(key, gen)
// times, then asks once, for a third of the generations, to be requeued after a delay, then
// records the generation as reconciled.
type generational struct {
	mu         sync.Mutex
	wanted     map[types.NamespacedName]int // the generation each key must reach
	reconciled map[types.NamespacedName]int // the generation each key reached
	failed     map[attempt]int              // failures so far, by key and generation
	requeued   map[attempt]bool             // whether a generation has asked to be requeued
	reconciles int
	changed    chan struct{} // signalled, without waiting, when reconciled changes
}

func (g *generational) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reconciles++
	gen := g.wanted[req.NamespacedName]
	a := attempt{req.String(), fmt.Sprint(gen)}
	switch {
	case g.failed[a] < failures(a.key, a.spec):
		g.failed[a]++
		return reconcile.Result{}, errInjected
	case gen%3 == 0 && !g.requeued[a]:
		g.requeued[a] = true
		return reconcile.Result{RequeueAfter: requeueAfter}, nil
	}
	g.reconciled[req.NamespacedName] = gen
	select {
	case g.changed <- struct{}{}:
	default:
	}
	return reconcile.Result{}, nil
}

// raise sets the generation key must reach.
func (g *generational) raise(key types.NamespacedName, gen int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wanted[key] = gen
}

// waitAll returns once every key has reached the generation it must, or fails the test when
// the bubble's clock passes the timeout first.
func (g *generational) waitAll(t *testing.T) {
	deadline := time.After(convergeTimeout)
	for {
		behind := g.behind()
		if len(behind) == 0 {
			return
		}
		select {
		case <-g.changed:
		case <-deadline:
			t.Fatalf("[controller-runtime] not every event was reconciled within %v: %d keys are behind, "+
				"such as %v", convergeTimeout, len(behind), behind[:min(len(behind), 5)])
		}
	}
}

// behind returns the keys that have not reached the generation they must yet, sorted.
func (g *generational) behind() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var keys []string
	for k, gen := range g.wanted {
		if g.reconciled[k] != gen {
			keys = append(keys, k.String())
		}
	}
	slices.Sort(keys)
	return keys
}

// TestControllerRuntime: a controller-runtime manager runs a controller whose NewQueue option
// returns actorqueue's rate-limiting queue, fed by source.Channel. In each of three rounds,
// every key gets one or two events announcing a new generation, and must reach it through
// failures (retried by AddRateLimited) and requeues (AddAfter) before the next round; the queue
// must then be empty with every key forgotten, and the manager must stop
// cleanly when its context ends, shutting the queue down and leaving no goroutine behind (the
// bubble would report one that never ends; goleak checks the others).
func TestControllerRuntime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The manager needs a REST config to build its client and cache, which are never used:
		// the controller's only source is a channel, so nothing dials this address.
		mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
			Logger:     logr.Discard(),
			Metrics:    metricsserver.Options{BindAddress: "0"},
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		})
		if err != nil {
			t.Fatal(err)
		}
		g := &generational{wanted: map[types.NamespacedName]int{}, reconciled: map[types.NamespacedName]int{},
			failed: map[attempt]int{}, requeued: map[attempt]bool{}, changed: make(chan struct{}, 1)}
		queues := make(chan clientgo.TypedRateLimitingInterface[reconcile.Request], 1)
		events := make(chan event.TypedGenericEvent[*corev1.ConfigMap])
		c, err := controller.NewTyped("stress", mgr, controller.TypedOptions[reconcile.Request]{
			Reconciler:              g,
			MaxConcurrentReconciles: runtimeConcurrency,
			NewQueue: func(_ string, l clientgo.TypedRateLimiter[reconcile.Request]) clientgo.TypedRateLimitingInterface[reconcile.Request] {
				q := actorqueue.NewTypedRateLimitingQueue(l)
				queues <- q
				return q
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(source.TypedChannel(events, &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{})); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		stopped := make(chan error, 1)
		go func() { stopped <- mgr.Start(ctx) }()
		// stop ends the manager and returns what Start returned; it also runs in the bubble
		// after a failure, so that nothing is left blocked when the bubble ends.
		stop := sync.OnceValue(func() error {
			cancel()
			return <-stopped
		})
		t.Cleanup(func() { stop() })
		q := <-queues
		sent := 0

		for gen := 1; gen <= generations; gen++ {
			for i := range runtimeKeys {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("cm-%03d", i)}}
				g.raise(types.NamespacedName{Namespace: namespace, Name: cm.Name}, gen)
				for range 1 + i%2 { // half the keys get their event twice
					events <- event.TypedGenericEvent[*corev1.ConfigMap]{Object: cm}
					sent++
				}
			}
			g.waitAll(t)
		}
		synctest.Wait()
		if n := q.Len(); n != 0 {
			t.Errorf("[controller-runtime] Len() = %d once every event was reconciled", n)
		}
		for key := range g.wanted {
			if n := q.NumRequeues(reconcile.Request{NamespacedName: key}); n != 0 {
				t.Errorf("[controller-runtime] NumRequeues(%v) = %d: a key was not forgotten", key, n)
			}
		}

		if err := stop(); err != nil {
			t.Errorf("[controller-runtime] the manager stopped with %v", err)
		}
		if !q.ShuttingDown() {
			t.Error("[controller-runtime] the manager stopped without shutting the queue down")
		}
		t.Logf("%d events, %d reconciles", sent, g.reconciles)
	})
}
