package equivalence

import (
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"
	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// The tests in this file pin differences from client-go that README lists, on input client-go
// handles by accident: each shows what both libraries do, so that a change on either side fails
// here before README goes stale.

// TestMaxOfKeepsItsOwnLimiters: client-go's max-of limiter keeps the slice it was given, so a
// caller who changes the slice afterwards changes the limiter; ours keeps a copy, checked for
// nil parts once, at construction.
func TestMaxOfKeepsItsOwnLimiters(t *testing.T) {
	cgParts := []clientgo.TypedRateLimiter[string]{clientgo.NewTypedItemFastSlowRateLimiter[string](time.Second, time.Second, 1)}
	cg := clientgo.NewTypedMaxOfRateLimiter(cgParts...)
	cgParts[0] = clientgo.NewTypedItemFastSlowRateLimiter[string](time.Hour, time.Hour, 1)

	aqParts := []actorqueue.TypedRateLimiter[string]{actorqueue.NewTypedItemFastSlowRateLimiter[string](time.Second, time.Second, 1)}
	aq := actorqueue.NewTypedMaxOfRateLimiter(aqParts...)
	aqParts[0] = actorqueue.NewTypedItemFastSlowRateLimiter[string](time.Hour, time.Hour, 1)

	if got := cg.When("a"); got != time.Hour {
		t.Errorf("client-go's max-of: When = %v after the slice changed, want 1h (it uses the changed slice)", got)
	}
	if got := aq.When("a"); got != time.Second {
		t.Errorf("actorqueue's max-of: When = %v after the slice changed, want 1s (it keeps its own copy)", got)
	}
}

// TestAFailedPushLeavesTheQueueAsItWas: when a custom storage panics in Push, client-go has
// already marked the item dirty, so adding it again only touches it: it is never handed out.
// actorqueue leaves the queue as it was, and the next Add pushes the item again.
func TestAFailedPushLeavesTheQueueAsItWas(t *testing.T) {
	for _, side := range []string{"client-go", "actorqueue"} {
		synctest.Test(t, func(t *testing.T) {
			s := &pushFails{fail: true}
			var q clientgo.TypedInterface[string]
			if side == "client-go" {
				q = clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{Queue: s})
			} else {
				q = actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{Queue: s})
			}
			defer q.ShutDown()
			if r := recovered(func() { q.Add("a") }); r != "push failed" {
				t.Fatalf("%s: the failing Add recovered %v, want the storage's panic", side, r)
			}
			q.Add("a")
			wantLen := map[string]int{"client-go": 0, "actorqueue": 1}[side]
			if got := q.Len(); got != wantLen {
				t.Errorf("%s: Len after adding the item again = %d, want %d", side, got, wantLen)
			}
		})
	}
}

// TestForgetAndNumRequeuesCheckTheItem: client-go's Forget and NumRequeues hand the item to the
// limiter unchecked, so with a limiter that keeps no map (a token bucket) an item that cannot
// be a map key passes. actorqueue's check it first, as its other methods do, and panic with a
// runtime.Error.
func TestForgetAndNumRequeuesCheckTheItem(t *testing.T) {
	item := []int{1}
	cg := clientgo.NewTypedRateLimitingQueue[any](&clientgo.TypedBucketRateLimiter[any]{Limiter: rate.NewLimiter(10, 100)})
	aq := actorqueue.NewTypedRateLimitingQueue[any](&actorqueue.TypedBucketRateLimiter[any]{Limiter: rate.NewLimiter(10, 100)})
	defer cg.ShutDown()
	defer aq.ShutDown()
	calls := map[string]func(q clientgo.TypedRateLimitingInterface[any]){
		"Forget":      func(q clientgo.TypedRateLimitingInterface[any]) { q.Forget(item) },
		"NumRequeues": func(q clientgo.TypedRateLimitingInterface[any]) { q.NumRequeues(item) },
	}
	for method, call := range calls {
		if r := recovered(func() { call(cg) }); r != nil {
			t.Errorf("client-go's %s panicked with %v, want no panic", method, r)
		}
		if _, ok := recovered(func() { call(aq) }).(runtime.Error); !ok {
			t.Errorf("actorqueue's %s did not panic with a runtime.Error", method)
		}
	}
}
