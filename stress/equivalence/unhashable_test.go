package equivalence

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// TestUnhashableItemsPanicWithARuntimeError: an item that cannot be a map key makes client-go's
// methods panic with the runtime's error from a map. Code that recovers it as a runtime.Error
// must get one from actorqueue too, in every method that panics in the caller in both.
func TestUnhashableItemsPanicWithARuntimeError(t *testing.T) {
	queues := map[string]clientgo.TypedRateLimitingInterface[any]{
		"client-go":  clientgo.NewTypedRateLimitingQueue(clientgo.DefaultTypedItemBasedRateLimiter[any]()),
		"actorqueue": actorqueue.NewTypedRateLimitingQueue(actorqueue.DefaultTypedItemBasedRateLimiter[any]()),
	}
	for name, q := range queues {
		calls := map[string]func(item any){
			"Add":            q.Add,
			"Done":           q.Done,
			"AddRateLimited": q.AddRateLimited,
			"Forget":         q.Forget,
			"NumRequeues":    func(item any) { q.NumRequeues(item) },
		}
		for method, call := range calls {
			r := recovered(func() { call([]int{1}) })
			if _, ok := r.(runtime.Error); !ok {
				t.Errorf("%s: %s([]int) recovered %T %v, want a runtime.Error", name, method, r, r)
			}
		}
		q.ShutDown()
	}
}

// recovered returns what f panics with, or nil.
func recovered(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// TestLimitersPanicOnUnhashableItemsAsClientGos: asked directly, client-go's failure-counting
// limiters panic on an item that cannot be a map key with whatever error their map raises,
// which depends on whether it counts anything yet; actorqueue's raise the same error, in the
// same calls.
func TestLimitersPanicOnUnhashableItemsAsClientGos(t *testing.T) {
	type limiter = clientgo.TypedRateLimiter[any]
	pairs := map[string][2]func() limiter{
		"exponential": {
			func() limiter {
				return clientgo.NewTypedItemExponentialFailureRateLimiter[any](time.Millisecond, time.Second)
			},
			func() limiter {
				return actorqueue.NewTypedItemExponentialFailureRateLimiter[any](time.Millisecond, time.Second)
			},
		},
		"fast-slow": {
			func() limiter { return clientgo.NewTypedItemFastSlowRateLimiter[any](time.Millisecond, time.Second, 2) },
			func() limiter {
				return actorqueue.NewTypedItemFastSlowRateLimiter[any](time.Millisecond, time.Second, 2)
			},
		},
	}
	item := []int{1}
	for name, pair := range pairs {
		for _, counting := range []bool{false, true} {
			var faults [2][]string
			for side, newLimiter := range pair {
				l := newLimiter()
				if counting {
					l.When("a")
				}
				for _, call := range []func(){
					func() { l.When(item) },
					func() { l.NumRequeues(item) },
					func() { l.Forget(item) },
				} {
					faults[side] = append(faults[side], fmt.Sprint(recovered(call)))
				}
			}
			if !slices.Equal(faults[0], faults[1]) {
				t.Errorf("%s (counting: %v): When, NumRequeues and Forget panicked with\n%q in client-go,\n%q in actorqueue",
					name, counting, faults[0], faults[1])
			}
		}
	}
}
