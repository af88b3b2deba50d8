package shardcache

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// server is an API server of ConfigMaps for the tests: it applies a shard selector of one
// bucket, as kube-apiserver with ShardedListAndWatch on does (a list echoes it in ShardInfo),
// or ignores it, as a server without the feature does. Lists may be held back (gate).
type server struct {
	field   Field
	buckets int
	honours bool

	mu       sync.Mutex
	rv       int
	objects  map[string]*corev1.ConfigMap // by key
	watchers []*serverWatch
	history  []watch.Event // every change, its object's resourceVersion rising
	lists    []string      // the selectors of the lists asked for, in order
	gate     chan struct{} // when not nil, lists wait until it is closed
}

type serverWatch struct {
	w      *watch.FakeWatcher
	bucket int // -1: every object
}

func newServer(field Field, buckets int, honours bool) *server {
	return &server{field: field, buckets: buckets, honours: honours, objects: make(map[string]*corev1.ConfigMap)}
}

// selected returns the bucket that selector names, or -1 for none (or when ignored).
func (s *server) selected(selector string) int {
	if !s.honours || selector == "" {
		return -1
	}
	for b := range s.buckets {
		if sharding.ShardSelector(string(s.field), s.buckets, b) == selector {
			return b
		}
	}
	panic("server: unknown selector " + selector)
}

func (s *server) bucketOf(cm *corev1.ConfigMap) int {
	b, err := s.field.bucketOf(cm, s.buckets)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *server) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	gate := s.gate
	s.lists = append(s.lists, opts.ShardSelector)
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.selected(opts.ShardSelector)
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
	if b >= 0 {
		list.ShardInfo = &metav1.ShardInfo{Selector: opts.ShardSelector}
	}
	for _, cm := range s.objects {
		if b < 0 || s.bucketOf(cm) == b {
			list.Items = append(list.Items, *cm.DeepCopy())
		}
	}
	return list, nil
}

func (s *server) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &serverWatch{w: watch.NewFakeWithChanSize(10000, false), bucket: s.selected(opts.ShardSelector)}
	s.watchers = append(s.watchers, w)
	from, _ := strconv.Atoi(opts.ResourceVersion)
	for _, e := range s.history { // the changes since the list, as a server's watch cache replays them
		cm := e.Object.(*corev1.ConfigMap)
		if rv, _ := strconv.Atoi(cm.ResourceVersion); rv > from && (w.bucket < 0 || s.bucketOf(cm) == w.bucket) {
			w.w.Action(e.Type, cm.DeepCopy())
		}
	}
	return w.w, nil
}

// List and Watch make server a cache.ListerWatcher; the reflector calls the WithContext ones.
func (s *server) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

func (s *server) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

// put creates or updates the ConfigMap namespace/name with uid, and tells the watchers.
func (s *server) put(namespace, name string, uid types.UID, data string) *corev1.ConfigMap {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	key := namespace + "/" + name
	event := watch.Modified
	if old, ok := s.objects[key]; !ok || old.UID != uid {
		event = watch.Added
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: uid,
		ResourceVersion: strconv.Itoa(s.rv)}, Data: map[string]string{"d": data}}
	s.objects[key] = cm
	s.notify(event, cm)
	return cm
}

// remove deletes the ConfigMap of key, and tells the watchers.
func (s *server) remove(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cm := s.objects[key]
	delete(s.objects, key)
	s.rv++
	cm = cm.DeepCopy()
	cm.ResourceVersion = strconv.Itoa(s.rv)
	s.notify(watch.Deleted, cm)
}

func (s *server) notify(event watch.EventType, cm *corev1.ConfigMap) {
	s.history = append(s.history, watch.Event{Type: event, Object: cm.DeepCopy()})
	live := s.watchers[:0]
	for _, w := range s.watchers {
		if w.w.IsStopped() {
			continue
		}
		live = append(live, w)
		if w.bucket < 0 || s.bucketOf(cm) == w.bucket {
			w.w.Action(event, cm.DeepCopy())
		}
	}
	s.watchers = live
}

// failWatches ends every open watch with an "expired" error, as a server does to a watch
// whose resourceVersion it has compacted away.
func (s *server) failWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	status := apierrors.NewResourceExpired("too old").Status()
	for _, w := range s.watchers {
		if !w.w.IsStopped() {
			w.w.Error(&status)
			w.w.Stop()
		}
	}
}

// watching returns how many watches are open.
func (s *server) watching() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.watchers {
		if !w.w.IsStopped() {
			n++
		}
	}
	return n
}

// listed returns the selectors of the lists asked for so far.
func (s *server) listed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lists...)
}

// populate creates n ConfigMaps in namespaces ns-0 … ns-6, named cm-i, with UIDs that
// spread over the buckets, as real ones (random) do: "uid-i" alone would not, as FNV-1a's
// high bits barely move for strings that differ at their end.
func (s *server) populate(n int) {
	for i := range n {
		s.put(fmt.Sprintf("ns-%d", i%7), fmt.Sprintf("cm-%d", i), testUID(i), "0")
	}
}

// testUID is the UID of populate's i-th object.
func testUID(i int) types.UID {
	return types.UID(fmt.Sprintf("%x-uid", sharding.HashKey(fmt.Sprint(i))))
}

// keysIn returns the keys of the server's objects in the given buckets.
func (s *server) keysIn(buckets ...int) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make(map[string]bool)
	for key, cm := range s.objects {
		for _, b := range buckets {
			if s.bucketOf(cm) == b {
				keys[key] = true
			}
		}
	}
	return keys
}

// recorder is a Metrics and an event handler that records what it is told.
type recorder struct {
	mu       sync.Mutex
	ignored  int
	filtered int
	synced   []int
	cached   int
	events   []string // "add key", "update key", "delete key"
}

func (r *recorder) SelectorIgnored(string) { r.mu.Lock(); r.ignored++; r.mu.Unlock() }
func (r *recorder) Filtered(_ string, n int) {
	r.mu.Lock()
	r.filtered += n
	r.mu.Unlock()
}
func (r *recorder) Synced(_ string, b int, _ time.Duration) {
	r.mu.Lock()
	r.synced = append(r.synced, b)
	r.mu.Unlock()
}
func (r *recorder) Cached(_ string, _ []int, n int) { r.mu.Lock(); r.cached = n; r.mu.Unlock() }

func (r *recorder) note(kind string, obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		panic(err)
	}
	r.mu.Lock()
	r.events = append(r.events, kind+" "+key)
	r.mu.Unlock()
}

func (r *recorder) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.note("add", obj) },
		UpdateFunc: func(_, obj any) { r.note("update", obj) },
		DeleteFunc: func(obj any) { r.note("delete", obj) },
	}
}

// take returns the events recorded since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	events := r.events
	r.events = nil
	return events
}

// newSharder returns a Sharder of buckets on an in-memory Lease server, not run: the tests
// play its part, calling the Informer's Prepare and Release.
func newSharder(buckets int) *sharding.Sharder {
	return sharding.New(sharding.Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(),
		Namespace: "ns", Name: "cache", Identity: "a", Buckets: buckets})
}

// running runs inf in the test's bubble until the test ends.
func running(t *testing.T, inf *Informer) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}
