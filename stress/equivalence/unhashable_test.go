package equivalence

import (
	"runtime"
	"testing"

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
