package controllerruntime_test

import (
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/controllerruntime"
)

func priority(p int) *int { return &p }

// TestNewQueueIsAPriorityQueue makes the type assertion controller-runtime's controller makes
// on what NewQueue returns: if it failed, the controller would wrap the queue and drop every
// priority.
func TestNewQueueIsAPriorityQueue(t *testing.T) {
	q := controllerruntime.NewQueue[string]("is-a-priority-queue", nil)
	defer q.ShutDown()
	if _, ok := q.(priorityqueue.PriorityQueue[string]); !ok {
		t.Fatalf("NewQueue returned a %T, which is not a priorityqueue.PriorityQueue", q)
	}
}

// TestAddOptsFields guards AddWithOpts's conversion: it copies After, RateLimited and Priority,
// so a field that a later controller-runtime adds to AddOpts must fail here, not be dropped.
func TestAddOptsFields(t *testing.T) {
	want := map[string]reflect.Type{
		"After":       reflect.TypeFor[time.Duration](),
		"RateLimited": reflect.TypeFor[bool](),
		"Priority":    reflect.TypeFor[*int](),
	}
	fields := reflect.VisibleFields(reflect.TypeFor[priorityqueue.AddOpts]())
	if len(fields) != len(want) {
		t.Errorf("priorityqueue.AddOpts has %d fields, AddWithOpts copies %d", len(fields), len(want))
	}
	for _, f := range fields {
		if want[f.Name] != f.Type {
			t.Errorf("priorityqueue.AddOpts.%s is a %v, AddWithOpts copies %v", f.Name, f.Type, want[f.Name])
		}
	}
}

// fixedLimiter makes every item wait wait, and counts its calls.
type fixedLimiter struct {
	wait   time.Duration
	when   map[string]int
	forgot []string
}

func (l *fixedLimiter) When(item string) time.Duration { l.when[item]++; return l.wait }
func (l *fixedLimiter) Forget(item string)             { l.forgot = append(l.forgot, item) }
func (l *fixedLimiter) NumRequeues(item string) int    { return l.when[item] }

// get takes the next item and checks it and its priority.
func get(t *testing.T, q priorityqueue.PriorityQueue[string], item string, prio int) {
	t.Helper()
	got, p, shutdown := q.GetWithPriority()
	if got != item || p != prio || shutdown {
		t.Fatalf("GetWithPriority() = %q, %d, %v; want %q, %d, false", got, p, shutdown, item, prio)
	}
}

// TestAddWithOpts checks that each of controller-runtime's options reaches the queue: the
// priority orders, After delays, RateLimited asks the controller's rate limiter, and both
// together take the shorter wait.
func TestAddWithOpts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := &fixedLimiter{wait: 2 * time.Second, when: map[string]int{}}
		var cq clientgo.TypedRateLimitingInterface[string] = controllerruntime.NewQueue[string]("add-with-opts", limiter)
		q := cq.(priorityqueue.PriorityQueue[string])
		defer q.ShutDown()

		q.AddWithOpts(priorityqueue.AddOpts{Priority: priority(1)}, "a", "b")
		q.AddWithOpts(priorityqueue.AddOpts{Priority: priority(7)}, "c")
		q.AddWithOpts(priorityqueue.AddOpts{After: time.Second, Priority: priority(9)}, "late")
		q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: priority(3)}, "limited")
		q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, After: 3 * time.Second}, "shorter")
		if n := q.Len(); n != 3 {
			t.Errorf("Len() = %d, want the 3 items added without a delay", n)
		}
		if limiter.when["limited"] != 1 || limiter.when["shorter"] != 1 || q.NumRequeues("limited") != 1 {
			t.Errorf("the rate limiter was asked %v, want once for each rate-limited item", limiter.when)
		}
		get(t, q, "c", 7)
		get(t, q, "a", 1)
		get(t, q, "b", 1)

		time.Sleep(time.Second)
		synctest.Wait()
		get(t, q, "late", 9)
		time.Sleep(time.Second) // the rate limiter's 2s is shorter than the 3s of After
		synctest.Wait()
		if n := q.Len(); n != 2 {
			t.Fatalf("Len() = %d after 2s, want both rate-limited items", n)
		}
		get(t, q, "limited", 3)
		get(t, q, "shorter", 0)

		q.Forget("limited")
		if len(limiter.forgot) != 1 || limiter.forgot[0] != "limited" {
			t.Errorf("Forget reached the rate limiter as %v", limiter.forgot)
		}
	})
}

// TestShutDownIgnoresLateAdds is what a controller does when its context ends: ShutDown from
// another goroutine releases the workers waiting in Get, and the adds of workers that finish
// later, and of event sources, are ignored; Done and Forget still work.
func TestShutDownIgnoresLateAdds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := &fixedLimiter{when: map[string]int{}}
		q := controllerruntime.NewQueue[string]("late-adds", limiter).(priorityqueue.PriorityQueue[string])
		q.Add("a")
		get(t, q, "a", 0)
		released := make(chan bool)
		go func() {
			_, _, shutdown := q.GetWithPriority()
			released <- shutdown
		}()
		synctest.Wait()

		go q.ShutDown()
		if !<-released {
			t.Error("a waiting GetWithPriority returned an item, not shutdown")
		}
		synctest.Wait()
		q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: priority(1)}, "a")
		q.AddAfter("b", time.Second)
		q.Add("c")
		q.Done("a")
		if n := q.Len(); n != 0 {
			t.Errorf("Len() = %d after adds that follow ShutDown", n)
		}
		if n := limiter.when["a"]; n != 0 {
			t.Errorf("a rate-limited add after ShutDown asked the rate limiter %d times", n)
		}
		if _, _, shutdown := q.GetWithPriority(); !shutdown || !q.ShuttingDown() {
			t.Error("the queue does not say it is shutting down")
		}
	})
}

// TestNewWithConfig checks that New keeps the whole configuration and controller-runtime's
// interface.
func TestNewWithConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := &fixedLimiter{wait: time.Minute, when: map[string]int{}}
		var q priorityqueue.PriorityQueue[string] = controllerruntime.New(workqueue.TypedPriorityQueueConfig[string]{RateLimiter: limiter})
		defer q.ShutDown()
		q.AddRateLimited("a")
		if q.Len() != 0 || q.NumRequeues("a") != 1 {
			t.Fatalf("Len() = %d, NumRequeues = %d: the configured rate limiter was not used", q.Len(), q.NumRequeues("a"))
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		get(t, q, "a", 0)
	})
}
