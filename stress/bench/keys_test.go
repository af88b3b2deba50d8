package bench

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"unsafe"
)

func TestNewStringKeyedBuildsEachImplementationsOwnQueue(t *testing.T) {
	want := map[string]string{
		"actorqueue":          "github.com/actorqueue/workqueue",
		"client-go":           "k8s.io/client-go/util/workqueue",
		"actorqueue priority": "github.com/actorqueue/workqueue/controllerruntime",
		"controller-runtime":  "sigs.k8s.io/controller-runtime/",
	}
	for _, impl := range Impls() {
		synctest.Test(t, func(t *testing.T) {
			q := impl.NewStringKeyed(DefaultRetry)
			defer q.ShutDown()
			if pkg := reflect.TypeOf(q).Elem().PkgPath(); !strings.HasPrefix(pkg, want[impl.Name]) {
				t.Errorf("%s: NewStringKeyed built a queue of package %s", impl.Name, pkg)
			}
		})
	}
}

// stringRecorder records the strings its queue is given.
type stringRecorder struct {
	Keyed[string]
	mu         sync.Mutex
	adds, done []string
}

func (r *stringRecorder) Add(item string) {
	r.mu.Lock()
	r.adds = append(r.adds, item)
	r.mu.Unlock()
	r.Keyed.Add(item)
}

func (r *stringRecorder) Done(item string) {
	r.mu.Lock()
	r.done = append(r.done, item)
	r.mu.Unlock()
	r.Keyed.Done(item)
}

// A workload run WithStringKeys gives its queue the prebuilt strings, Add and Done alike, and
// processes every key once.
func TestStringKeysReachTheQueueAsBuilt(t *testing.T) {
	const items = 300
	keys := ObjectKeys(items)
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var rec *stringRecorder
				recorded := impl
				recorded.NewStringKeyed = func(r Retry) Keyed[string] {
					rec = &stringRecorder{Keyed: impl.NewStringKeyed(r)}
					return rec
				}
				Cycle(WithStringKeys(recorded, keys), CycleSpec{Items: items, Producers: 3, Workers: 2})
				if rec == nil {
					t.Fatal("the workload did not run on a string-keyed queue")
				}
				for op, got := range map[string][]string{"Add": rec.adds, "Done": rec.done} {
					if len(got) != items {
						t.Errorf("%s was called %d times, want %d", op, len(got), items)
					}
					seen := make(map[int]bool)
					for _, s := range got {
						k := keyOf(s)
						if seen[k] || unsafe.StringData(s) != unsafe.StringData(keys[k]) {
							t.Errorf("%s was given %q twice or not as built", op, s)
						}
						seen[k] = true
					}
				}
			})
		})
	}
}

func TestObjectKeysReadBack(t *testing.T) {
	keys := ObjectKeys(1000)
	if keys[57] != "namespace-7/object-57" {
		t.Errorf("key 57 is %q, want namespace-7/object-57", keys[57])
	}
	for k, s := range keys {
		if keyOf(s) != k {
			t.Fatalf("keyOf(%q) = %d, want %d", s, keyOf(s), k)
		}
	}
}
