package controllers

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	clientgo "k8s.io/client-go/util/workqueue"
)

// The shape of the classic scenario.
const (
	objects         = 200
	classicWorkers  = 4
	namespace       = "stress"
	convergeTimeout = 10 * time.Minute // on the bubble's clock: a watchdog against hangs
)

// errInjected is the failure a reconcile reports on purpose.
var errInjected = errors.New("injected failure")

// failures is how many times the reconcile of a ConfigMap at a given spec fails before it
// succeeds: 0 to 3, the same in every run.
func failures(key, spec string) int {
	h := fnv.New32a()
	fmt.Fprint(h, key, "@", spec)
	return int(h.Sum32() % 4)
}

// classic is the controller every client-go tutorial writes: event handlers put keys on a
// rate-limiting queue, workers reconcile them and retry failures with AddRateLimited. Its
// reconcile copies each ConfigMap's data["spec"] to data["status"].
type classic struct {
	client kubernetes.Interface
	lister corelisters.ConfigMapLister
	queue  clientgo.TypedRateLimitingInterface[string]

	mu       sync.Mutex
	attempts map[attempt]int   // failures injected so far, by key and spec
	injected int               // failures injected in all
	seen     map[string]string // key → the spec last seen reconciled, "" once gone
	changed  chan struct{}     // signalled, without waiting, when seen changes
}

// enqueue is the event handler: it puts the key of obj, a ConfigMap or its tombstone, on the queue.
func (c *classic) enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		panic(err)
	}
	c.queue.Add(key)
}

// work is one worker.
func (c *classic) work(ctx context.Context) {
	for {
		key, shutdown := c.queue.Get()
		if shutdown {
			return
		}
		if err := c.reconcile(ctx, key); err != nil {
			c.queue.AddRateLimited(key)
		} else {
			c.queue.Forget(key)
		}
		c.queue.Done(key)
	}
}

// reconcile brings the ConfigMap named by key to its final state, failing on purpose first.
func (c *classic) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	cm, err := c.lister.ConfigMaps(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		c.see(key, "")
		return nil
	case err != nil:
		return err
	case cm.Data["status"] == cm.Data["spec"]:
		c.see(key, cm.Data["spec"])
		return nil
	}
	if c.fail(attempt{key, cm.Data["spec"]}) {
		return errInjected
	}
	cm = cm.DeepCopy()
	cm.Data["status"] = cm.Data["spec"]
	_, err = c.client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// attempt is a reconcile of a key that finds its spec to apply.
type attempt struct{ key, spec string }

// fail reports whether attempt fails on purpose: the first failures(key, spec) times it runs.
func (c *classic) fail(a attempt) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.attempts[a] == failures(a.key, a.spec) {
		return false
	}
	c.attempts[a]++
	c.injected++
	return true
}

// see records that key was found reconciled at spec ("" for gone).
func (c *classic) see(key, spec string) {
	c.mu.Lock()
	c.seen[key] = spec
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// waitFor returns once every key of want has been seen reconciled at its spec, or fails the
// test when the bubble's clock passes the timeout first.
func (c *classic) waitFor(t *testing.T, want map[string]string) {
	deadline := time.After(convergeTimeout)
	for {
		behind := c.behind(want)
		if len(behind) == 0 {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("[controller] not every object reached its final state within %v: %d did not, such as %v",
				convergeTimeout, len(behind), behind[:min(len(behind), 5)])
		}
	}
}

// behind returns the keys of want not seen reconciled at their spec yet, sorted.
func (c *classic) behind(want map[string]string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []string
	for k, spec := range want {
		if got, ok := c.seen[k]; !ok || got != spec {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// outcome is what a run of the classic scenario ends with.
type outcome struct {
	final    map[string]map[string]string // every ConfigMap left, by name: its data
	injected int                          // failures injected
}

// runClassic plays the scenario with the queue newQueue makes: create the ConfigMaps, wait
// until all are reconciled, change the spec of half, delete a quarter, wait again. Then the
// queue must be empty and have forgotten every key.
func runClassic(t *testing.T, newQueue func() clientgo.TypedRateLimitingInterface[string]) (o outcome) {
	// The fake watch panics when its channel is full: give it room for every event the
	// scenario can make (two writes of each ConfigMap by the test, two by the controller).
	watch.DefaultChanSize = 4 * objects
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewSimpleClientset() // no field management: far cheaper, and enough here
		factory := informers.NewSharedInformerFactory(client, 0)
		cms := factory.Core().V1().ConfigMaps()
		c := &classic{client: client, lister: cms.Lister(), queue: newQueue(),
			attempts: map[attempt]int{}, seen: map[string]string{}, changed: make(chan struct{}, 1)}
		if _, err := cms.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueue,
			UpdateFunc: func(_, obj any) { c.enqueue(obj) },
			DeleteFunc: c.enqueue,
		}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		factory.Start(ctx.Done())
		factory.WaitForCacheSync(ctx.Done())
		var workers sync.WaitGroup
		for range classicWorkers {
			workers.Go(func() { c.work(ctx) })
		}
		// Stopping runs in the bubble once the test function returns, even after a failure:
		// nothing may be left blocked when the bubble ends.
		t.Cleanup(func() {
			c.queue.ShutDown()
			workers.Wait()
			cancel()
			factory.Shutdown()
		})

		want := map[string]string{}
		for i := range objects {
			name := fmt.Sprintf("cm-%02d", i)
			create(t, client, name, "1")
			want[namespace+"/"+name] = "1"
		}
		c.waitFor(t, want)
		for i := range objects {
			name := fmt.Sprintf("cm-%02d", i)
			switch i % 4 {
			case 0:
				remove(t, client, name)
				want[namespace+"/"+name] = ""
			case 1, 2:
				respec(t, client, name, "2")
				want[namespace+"/"+name] = "2"
			}
		}
		c.waitFor(t, want)
		synctest.Wait() // the events of the last updates are handled

		if n := c.queue.Len(); n != 0 {
			t.Errorf("[controller] Len() = %d once every object is reconciled", n)
		}
		for key := range want {
			if n := c.queue.NumRequeues(key); n != 0 {
				t.Errorf("[controller] NumRequeues(%s) = %d: a retried key was not forgotten", key, n)
			}
		}
		o = outcome{final: list(t, client), injected: c.injected}
	})
	return o
}

func create(t *testing.T, client kubernetes.Interface, name, spec string) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string]string{"spec": spec}}
	if _, err := client.CoreV1().ConfigMaps(namespace).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func respec(t *testing.T, client kubernetes.Interface, name, spec string) {
	cm, err := client.CoreV1().ConfigMaps(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["spec"] = spec
	if _, err := client.CoreV1().ConfigMaps(namespace).Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, client kubernetes.Interface, name string) {
	if err := client.CoreV1().ConfigMaps(namespace).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// list returns the data of every ConfigMap, by name.
func list(t *testing.T, client kubernetes.Interface) map[string]map[string]string {
	l, err := client.CoreV1().ConfigMaps(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]map[string]string{}
	for _, cm := range l.Items {
		m[cm.Name] = maps.Clone(cm.Data)
	}
	return m
}
