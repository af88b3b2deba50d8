package workqueue_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
	"golang.org/x/time/rate"
)

// namespace is the group of a "namespace/name" key.
func namespace(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

// groupedQueue is a queue kind under test, built with the given group options.
type groupedQueue struct {
	name string
	make func(group func(string) string, max int) workqueue.TypedInterface[string]
}

var groupedKinds = []groupedQueue{
	{"fifo", func(g func(string) string, max int) workqueue.TypedInterface[string] {
		return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Group: g, MaxPerGroup: max})
	}},
	{"delaying", func(g func(string) string, max int) workqueue.TypedInterface[string] {
		return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Group: g, MaxPerGroup: max})
	}},
	{"rate-limiting", func(g func(string) string, max int) workqueue.TypedInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Group: g, MaxPerGroup: max})
	}},
	{"priority", func(g func(string) string, max int) workqueue.TypedInterface[string] {
		return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Group: g, MaxPerGroup: max})
	}},
}

func TestGroupsTakeTurnsOnEveryKind(t *testing.T) {
	for _, k := range groupedKinds {
		t.Run(k.name, func(t *testing.T) {
			q := k.make(namespace, 0)
			defer q.ShutDown()
			for i := range 1000 {
				q.Add(fmt.Sprintf("big/%d", i))
			}
			q.Add("small/0")
			q.Add("other/0")
			var got []string
			for range 4 {
				item, _ := q.Get()
				got = append(got, item)
				q.Done(item)
			}
			if want := []string{"big/0", "small/0", "other/0", "big/1"}; !slices.Equal(got, want) {
				t.Fatalf("handed out %v, want %v", got, want)
			}
		})
	}
}

func TestMaxPerGroupOnEveryKind(t *testing.T) {
	for _, k := range groupedKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := k.make(namespace, 2)
				defer q.ShutDown()
				for i := range 5 {
					q.Add(fmt.Sprintf("a/%d", i))
				}
				got := make(chan string, 10)
				for range 4 {
					go func() {
						item, shutdown := q.Get()
						if !shutdown {
							got <- item
						}
					}()
				}
				synctest.Wait()
				if len(got) != 2 || q.Len() != 3 {
					t.Fatalf("%d items handed out, Len %d; want 2 (the limit), 3 held", len(got), q.Len())
				}
				first := <-got
				q.Done(first)
				synctest.Wait()
				if len(got) != 2 {
					t.Fatalf("%d items handed out after one Done; want 2", len(got))
				}
				q.Add("b/0") // another group is not held back
				synctest.Wait()
				if len(got) != 3 {
					t.Fatalf("b/0 not handed out beside a group at its limit")
				}
				q.ShutDown()
			})
		})
	}
}

// TestMaxPerGroupHoldsAcrossPriorities: a priority queue's limit is per group, whatever the
// priorities of its items: a group at its limit through an item of one priority is skipped in
// the turns of another.
func TestMaxPerGroupHoldsAcrossPriorities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Group: namespace, MaxPerGroup: 1})
		defer q.ShutDown()
		high := 1
		q.AddWithOpts(workqueue.AddOpts{Priority: &high}, "a/0")
		q.AddBatch("a/1", "b/0")
		var got []string
		for range 2 {
			item, _ := q.Get()
			got = append(got, item)
		}
		if !slices.Equal(got, []string{"a/0", "b/0"}) {
			t.Fatalf("handed out %v, want [a/0 b/0]: a/1 waits for a/0", got)
		}
		if q.Len() != 1 {
			t.Fatalf("Len %d, want 1: a/1 held", q.Len())
		}
		q.Done("a/0")
		if item, _ := q.Get(); item != "a/1" {
			t.Fatalf("Get after a/0 is done = %q, want a/1", item)
		}
	})
}

func TestShutdownLiftsTheLimitOfAFIFOQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Group: namespace, MaxPerGroup: 1})
		q.Add("a/0")
		q.Add("a/1")
		first, _ := q.Get()
		q.ShutDown()
		second, shutdown := q.Get()
		if shutdown || second != "a/1" {
			t.Fatalf("Get after shutdown = %q, %v; want a/1, the item still queued", second, shutdown)
		}
		q.Done(first)
		q.Done(second)
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get of a drained queue did not report shutdown")
		}
	})
}

func TestGroupPanicSurfacesInCallerOnEveryKind(t *testing.T) {
	group := func(key string) string {
		if key == "bad" {
			panic("no namespace")
		}
		return namespace(key)
	}
	for _, k := range groupedKinds {
		t.Run(k.name, func(t *testing.T) {
			q := k.make(group, 1)
			defer q.ShutDown()
			q.Add("a/0")
			p := recovered(func() { q.Add("bad") })
			if p != "no namespace" {
				t.Fatalf("Add of an item without a group panicked with %v, want the group function's panic", p)
			}
			q.Add("a/1")
			if q.Len() != 2 {
				t.Fatalf("Len %d after the panic, want 2", q.Len())
			}
			item, _ := q.Get()
			q.Done(item)
			if item, _ := q.Get(); item != "a/1" {
				t.Fatalf("Get = %q, want a/1", item)
			}
		})
	}
}

// recovered returns what f panics with, or nil.
func recovered(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

func TestGroupOptionsRejectBadInput(t *testing.T) {
	rl := workqueue.DefaultTypedControllerRateLimiter[string]()
	for name, f := range map[string]func(){
		"negative MaxPerGroup": func() {
			workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Group: namespace, MaxPerGroup: -1})
		},
		"MaxPerGroup without Group": func() {
			workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{MaxPerGroup: 1})
		},
		"Group and Queue": func() {
			workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Group: namespace, Queue: workqueue.DefaultQueue[string]()})
		},
		"Group with a delaying queue's Queue": func() {
			workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Group: namespace, Queue: workqueue.NewTyped[string]()})
		},
		"negative MaxRetries": func() {
			workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{MaxRetries: -1})
		},
		"GiveUp without MaxRetries": func() {
			workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{GiveUp: func(string, int) {}})
		},
		"priority MaxPerGroup without Group": func() {
			workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{MaxPerGroup: 3})
		},
		"priority negative MaxRetries": func() {
			workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{MaxRetries: -2})
		},
	} {
		p := recovered(f)
		if s, _ := p.(string); !strings.HasPrefix(s, "workqueue: ") {
			t.Errorf("%s: panic %v, want one with a workqueue: message", name, p)
		}
	}
}

// retryingQueue is a rate-limiting queue kind under test, with a maximum of retries.
type retryingQueue struct {
	name string
	make func(max int, giveUp func(string, int)) workqueue.TypedRateLimitingInterface[string]
}

var retryingKinds = []retryingQueue{
	{"rate-limiting", func(max int, giveUp func(string, int)) workqueue.TypedRateLimitingInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{MaxRetries: max, GiveUp: giveUp})
	}},
	{"around another package's delaying queue", func(max int, giveUp func(string, int)) workqueue.TypedRateLimitingInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{MaxRetries: max, GiveUp: giveUp, DelayingQueue: otherDelaying{workqueue.NewTypedDelayingQueue[string]()}})
	}},
	{"priority", func(max int, giveUp func(string, int)) workqueue.TypedRateLimitingInterface[string] {
		return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{MaxRetries: max, GiveUp: giveUp})
	}},
}

// otherDelaying is a delaying queue of a type this package does not know.
type otherDelaying struct {
	workqueue.TypedDelayingInterface[string]
}

func TestMaxRetriesGivesUpOnEveryKind(t *testing.T) {
	for _, k := range retryingKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var gaveUp []string
				q := k.make(3, func(item string, attempts int) {
					gaveUp = append(gaveUp, fmt.Sprintf("%s after %d", item, attempts))
				})
				defer q.ShutDown()
				for range 3 {
					q.AddRateLimited("a")
					if gaveUp != nil {
						t.Fatalf("gave up before the maximum: %v", gaveUp)
					}
				}
				time.Sleep(time.Minute) // in the bubble: every retry falls due
				if q.Len() != 1 {
					t.Fatalf("Len %d after three retries, want 1", q.Len())
				}
				item, _ := q.Get()
				q.Done(item)
				q.AddRateLimited("a") // the fourth: over the maximum
				if !slices.Equal(gaveUp, []string{"a after 4"}) {
					t.Fatalf("gave up %v, want a after 4", gaveUp)
				}
				if n := q.NumRequeues("a"); n != 0 {
					t.Fatalf("the limiter counts %d failures of an item given up on, want 0", n)
				}
				time.Sleep(time.Minute)
				if q.Len() != 0 {
					t.Fatalf("Len %d after giving up, want 0: the item is not requeued", q.Len())
				}
				// The count starts again, and Forget resets it.
				q.AddRateLimited("a")
				q.AddRateLimited("a")
				q.Forget("a")
				for range 3 {
					q.AddRateLimited("a")
				}
				if len(gaveUp) != 1 {
					t.Fatalf("gave up %v; Forget did not reset the count", gaveUp)
				}
			})
		})
	}
}

// retryingWith makes each kind of rate-limiting queue around rl, with MaxRetries 1.
var retryingWith = map[string]func(rl workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string]{
	"rate-limiting": func(rl workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{MaxRetries: 1})
	},
	"around another package's delaying queue": func(rl workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{
			MaxRetries: 1, DelayingQueue: otherDelaying{workqueue.NewTypedDelayingQueue[string]()}})
	},
	"priority": func(rl workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
		return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{RateLimiter: rl, MaxRetries: 1})
	},
}

// A call that gives up adds nothing, so it asks the limiter nothing: a token bucket keeps the
// token for an item that will be added. The exception (see the package documentation,
// "Retries"): a limiter of the user's own type on a queue of this package, which the caller
// asks first.
func TestGiveUpAsksNoLimiter(t *testing.T) {
	for name, newQueue := range retryingWith {
		for _, own := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/own type %v", name, own), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					bucket := &workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(1, 3)}
					var rl workqueue.TypedRateLimiter[string] = bucket
					if own {
						rl = ownBucket{bucket}
					}
					q := newQueue(rl)
					defer q.ShutDown()
					q.AddRateLimited("a") // takes a token
					q.AddRateLimited("a") // gives up
					want := 2.0
					if own && name != "around another package's delaying queue" {
						want = 1 // asked before the count
					}
					if left := bucket.Limiter.Tokens(); left != want {
						t.Fatalf("%v tokens left after one requeue and one give-up, want %v", left, want)
					}
				})
			})
		}
	}
}

// ownBucket is a rate limiter of a type of the user's.
type ownBucket struct {
	*workqueue.TypedBucketRateLimiter[string]
}

func TestGiveUpPanicSurfacesInCaller(t *testing.T) {
	for _, k := range retryingKinds {
		t.Run(k.name, func(t *testing.T) {
			q := k.make(1, func(string, int) { panic("dead letter failed") })
			defer q.ShutDown()
			q.AddRateLimited("a")
			if p := recovered(func() { q.AddRateLimited("a") }); p != "dead letter failed" {
				t.Fatalf("AddRateLimited panicked with %v, want the give-up function's panic", p)
			}
			q.Add("b") // the queue goes on
			if item, _ := q.Get(); item != "b" && item != "a" {
				t.Fatalf("Get = %q", item)
			}
		})
	}
}

func TestConcurrentRetriesGiveUpOncePerMaximum(t *testing.T) {
	for _, k := range retryingKinds {
		t.Run(k.name, func(t *testing.T) {
			var mu sync.Mutex
			total := 0
			q := k.make(4, func(_ string, attempts int) {
				mu.Lock()
				defer mu.Unlock()
				if attempts != 5 {
					t.Errorf("gave up after %d attempts, want 5", attempts)
				}
				total++
			})
			defer q.ShutDown()
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() {
					for range 10 {
						q.AddRateLimited("a")
					}
				})
			}
			wg.Wait()
			if total != 20 { // 100 calls, one give-up in every 5
				t.Fatalf("gave up %d times in 100 calls with at most 4 retries, want 20", total)
			}
		})
	}
}

func TestPriorityAddWithOptsCountsRateLimitedAdds(t *testing.T) {
	var gaveUp []string
	q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{
		MaxRetries: 1, GiveUp: func(item string, _ int) { gaveUp = append(gaveUp, item) },
	})
	defer q.ShutDown()
	q.AddWithOpts(workqueue.AddOpts{RateLimited: true}, "a", "b")
	q.AddWithOpts(workqueue.AddOpts{}, "a", "b") // not rate-limited: not counted
	q.AddWithOpts(workqueue.AddOpts{RateLimited: true}, "a", "c")
	if !slices.Equal(gaveUp, []string{"a"}) {
		t.Fatalf("gave up on %v, want a", gaveUp)
	}
}

// A grouped queue runs its group function in the caller, to raise its panic there, and again
// in its own goroutine: an add does not wait for that second call.
func TestGroupedAddsDoNotWaitForTheQueue(t *testing.T) {
	for _, k := range groupedKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				calls := 0 // the caller's call, then the queue's: in that order, one at a time
				group := func(key string) string {
					if calls++; calls == 2 {
						<-release // the queue's call waits
					}
					return namespace(key)
				}
				q := k.make(group, 0)
				q.Add("a/0") // returns while the queue's goroutine waits in group
				synctest.Wait()
				if calls != 2 {
					t.Fatalf("group called %d times once Add returned and the queue waits, want 2", calls)
				}
				close(release)
				if item, _ := q.Get(); item != "a/0" {
					t.Fatalf("Get = %q, want a/0", item)
				}
				q.Done("a/0")
				q.ShutDown()
			})
		})
	}
}

// A group function that returns for an item in the caller and panics for it in the queue's
// goroutine (it is not a function of the item alone) loses no item: the item goes into the
// group named "", and the panic is raised in the next caller that waits for an answer.
func TestAGroupThatPanicsOnlyInTheQueueLosesNoItem(t *testing.T) {
	for _, k := range groupedKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				group := func(key string) string {
					if calls++; calls == 2 {
						panic("changed its mind")
					}
					return namespace(key)
				}
				q := k.make(group, 0)
				defer q.ShutDown()
				q.Add("a/0")
				synctest.Wait()
				if p := recovered(func() { q.Len() }); p != "changed its mind" {
					t.Fatalf("the next Len panicked with %v, want the group function's panic", p)
				}
				if item, _ := q.Get(); item != "a/0" {
					t.Fatalf("Get = %q, want a/0", item)
				}
				q.Done("a/0")
			})
		})
	}
}

// Forget is called after every success: with a maximum of retries it drops the item's count
// without waiting for the queue's goroutine, which here is held in the group function.
func TestForgetWithMaxRetriesDoesNotWait(t *testing.T) {
	kinds := map[string]func(group func(string) string, giveUp func(string, int)) workqueue.TypedRateLimitingInterface[string]{
		"rate-limiting": func(group func(string) string, giveUp func(string, int)) workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
				workqueue.TypedRateLimitingQueueConfig[string]{Group: group, MaxRetries: 1, GiveUp: giveUp})
		},
		"priority": func(group func(string) string, giveUp func(string, int)) workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{Group: group, MaxRetries: 1, GiveUp: giveUp})
		},
	}
	for name, build := range kinds {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				holds := 0
				group := func(key string) string {
					if key == "hold/0" {
						if holds++; holds == 2 { // the queue's own call
							<-release
						}
					}
					return namespace(key)
				}
				var gaveUp []string
				q := build(group, func(key string, _ int) { gaveUp = append(gaveUp, key) })
				defer q.ShutDown()
				q.AddRateLimited("a/1") // its one retry
				q.Add("hold/0")         // the queue's goroutine waits in group
				synctest.Wait()
				q.Forget("a/1") // returns all the same
				close(release)
				q.AddRateLimited("a/1") // counted from zero again: a retry, not a give-up
				if len(gaveUp) != 0 {
					t.Fatalf("gave up on %v after Forget, want none", gaveUp)
				}
			})
		})
	}
}

// panicsOnce is a rate limiter of the user's whose When panics while armed, then asks base.
type panicsOnce struct {
	workqueue.TypedRateLimiter[string]
	armed bool
}

func (l *panicsOnce) When(item string) time.Duration {
	if l.armed {
		l.armed = false
		panic("limiter failed")
	}
	return l.TypedRateLimiter.When(item)
}

// TestAPanickingCallUsesUpNoRetry: an AddRateLimited that panics, in the user's limiter or in
// the group function, adds nothing and counts nothing, so with MaxRetries 1 the next failure
// is still retried, and only the one after it gives up (issue 36: it used to count).
func TestAPanickingCallUsesUpNoRetry(t *testing.T) {
	build := func(kind string, l *panicsOnce, groupFails *bool) workqueue.TypedRateLimitingInterface[string] {
		group := func(key string) string {
			if *groupFails {
				*groupFails = false
				panic("group failed")
			}
			return namespace(key)
		}
		switch kind {
		case "rate-limiting":
			return workqueue.NewTypedRateLimitingQueueWithConfig[string](l,
				workqueue.TypedRateLimitingQueueConfig[string]{MaxRetries: 1, Group: group})
		case "priority":
			return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{
				MaxRetries: 1, RateLimiter: l, Group: group})
		}
		return workqueue.NewTypedRateLimitingQueueWithConfig[string](l, workqueue.TypedRateLimitingQueueConfig[string]{
			MaxRetries: 1, DelayingQueue: otherDelaying{workqueue.NewTypedDelayingQueue[string]()}})
	}
	for _, c := range []struct{ cause, kind string }{
		{"limiter", "rate-limiting"}, {"limiter", "priority"}, {"limiter", "around another package's delaying queue"},
		{"group", "rate-limiting"}, {"group", "priority"},
	} {
		t.Run(c.cause+"/"+c.kind, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := &panicsOnce{TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, 0)}
				groupFails := false
				q := build(c.kind, l, &groupFails)
				defer q.ShutDown()
				l.armed, groupFails = c.cause == "limiter", c.cause == "group"
				if p := recovered(func() { q.AddRateLimited("ns/a") }); p == nil {
					t.Fatal("the AddRateLimited did not panic")
				}
				q.AddRateLimited("ns/a") // the first real failure: retried
				time.Sleep(time.Millisecond)
				if q.Len() != 1 {
					t.Fatalf("Len %d: the first failure after the panic was not retried", q.Len())
				}
			})
		})
	}
}
