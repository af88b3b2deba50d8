package equivalence

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// TestZeroValueLimiters: the zero value of an exponential or fast-slow limiter, made without its
// constructor, counts nothing and forgets without complaint in client-go (its map is nil), and
// panics when asked to wait (writing to that map). Both libraries do the same, on their own and
// in a queue, where the panic reaches the caller of AddRateLimited and nothing else.
func TestZeroValueLimiters(t *testing.T) {
	kinds := map[string][2]func() clientgo.TypedRateLimiter[string]{
		"exponential": {
			func() clientgo.TypedRateLimiter[string] {
				return &clientgo.TypedItemExponentialFailureRateLimiter[string]{}
			},
			func() clientgo.TypedRateLimiter[string] {
				return &actorqueue.TypedItemExponentialFailureRateLimiter[string]{}
			},
		},
		"fast-slow": {
			func() clientgo.TypedRateLimiter[string] { return &clientgo.TypedItemFastSlowRateLimiter[string]{} },
			func() clientgo.TypedRateLimiter[string] { return &actorqueue.TypedItemFastSlowRateLimiter[string]{} },
		},
	}
	for kind, makers := range kinds {
		t.Run(kind, func(t *testing.T) {
			var results [2]string
			for i, newLimiter := range makers {
				l := newLimiter()
				results[i] = fmt.Sprintf("alone: NumRequeues %s, Forget %s, When %s",
					outcomeOf(func() any { return l.NumRequeues("a") }),
					outcomeOf(func() any { l.Forget("a"); return nil }),
					outcomeOf(func() any { return l.When("a") }))
				synctest.Test(t, func(t *testing.T) {
					q := rateLimitingOn(i, newLimiter(), newMetricCalls())
					defer q.ShutDown()
					results[i] += fmt.Sprintf("; in a queue: AddRateLimited %s, then Len %s, NumRequeues %s, Forget %s",
						outcomeOf(func() any { q.AddRateLimited("a"); return nil }),
						outcomeOf(func() any { return q.Len() }),
						outcomeOf(func() any { return q.NumRequeues("a") }),
						outcomeOf(func() any { q.Forget("a"); return nil }))
				})
			}
			if results[0] != results[1] {
				t.Errorf("client-go:  %s\nactorqueue: %s", results[0], results[1])
			}
		})
	}
}

// outcomeOf returns what f returns, or "panics" if it panics: the two libraries' messages differ.
func outcomeOf(f func() any) (outcome string) {
	defer func() {
		if recover() != nil {
			outcome = "panics"
		}
	}()
	return fmt.Sprint(f())
}

// nilReceiver is a limiter of the user's whose methods never read their receiver, so that even
// a nil *nilReceiver works.
type nilReceiver struct{}

func (*nilReceiver) When(string) time.Duration { return time.Second }
func (*nilReceiver) Forget(string)             {}
func (*nilReceiver) NumRequeues(string) int    { return 7 }

// TestNilLimiterOfTheUsersType: client-go takes any limiter, and a nil pointer of a type whose
// methods do not read the receiver works there. Both libraries take it, alone, in a max-of, a
// max-wait and a queue. (For a nil interface, or a nil pointer to a limiter of the library's
// own, see TestNilLimiter.)
func TestNilLimiterOfTheUsersType(t *testing.T) {
	l := (*nilReceiver)(nil)
	results := [2]string{
		fmt.Sprintf("max-of %s, max-wait %s",
			outcomeOf(func() any { return clientgo.NewTypedMaxOfRateLimiter[string](l).When("x") }),
			outcomeOf(func() any { return clientgo.NewTypedWithMaxWaitRateLimiter[string](l, time.Minute).When("x") })),
		fmt.Sprintf("max-of %s, max-wait %s",
			outcomeOf(func() any { return actorqueue.NewTypedMaxOfRateLimiter[string](l).When("x") }),
			outcomeOf(func() any { return actorqueue.NewTypedWithMaxWaitRateLimiter[string](l, time.Minute).When("x") })),
	}
	for i := range 2 {
		synctest.Test(t, func(t *testing.T) {
			q := rateLimitingOn(i, l, newMetricCalls())
			defer q.ShutDown()
			results[i] += fmt.Sprintf("; in a queue: NumRequeues %s", outcomeOf(func() any { return q.NumRequeues("x") }))
		})
	}
	if results[0] != results[1] {
		t.Errorf("client-go:  %s\nactorqueue: %s", results[0], results[1])
	}
}

// TestNilLimiter: client-go's queues take a nil rate limiter, or a nil pointer to one of its own
// limiters, and work as delaying queues until they ask it: AddRateLimited, NumRequeues and
// Forget then panic in the caller, and add nothing. Both libraries do the same (controller-
// runtime's tests build such a queue).
func TestNilLimiter(t *testing.T) {
	kinds := map[string][2]clientgo.TypedRateLimiter[string]{
		"nil interface": {nil, nil},
		"nil pointer": {
			(*clientgo.TypedItemExponentialFailureRateLimiter[string])(nil),
			(*actorqueue.TypedItemExponentialFailureRateLimiter[string])(nil),
		},
	}
	for kind, limiters := range kinds {
		t.Run(kind, func(t *testing.T) {
			var results [2]string
			for i, l := range limiters {
				synctest.Test(t, func(t *testing.T) {
					q := rateLimitingOn(i, l, newMetricCalls())
					defer q.ShutDown()
					q.Add("a")
					q.AddAfter("b", time.Second)
					results[i] = fmt.Sprintf("AddRateLimited %s, NumRequeues %s, Forget %s",
						outcomeOf(func() any { q.AddRateLimited("c"); return nil }),
						outcomeOf(func() any { return q.NumRequeues("a") }),
						outcomeOf(func() any { q.Forget("a"); return nil }))
					time.Sleep(time.Minute)
					synctest.Wait()
					results[i] += fmt.Sprintf("; then Len %d, Get", q.Len())
					for q.Len() > 0 {
						item, _ := q.Get()
						q.Done(item)
						results[i] += " " + item
					}
				})
			}
			if results[0] != results[1] {
				t.Errorf("client-go:  %s\nactorqueue: %s", results[0], results[1])
			}
		})
	}
}
