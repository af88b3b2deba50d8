package equivalence

import (
	"fmt"
	"math"
	"testing"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// TestNaNItemsInTheLimiters: a NaN is a valid map key that never finds itself again, so each
// limiter that counts failures in a map treats every retry of a NaN as its first, in its own
// way. The fast-slow limiter counts the failure and then reads the count back, finding 0: with
// no fast attempts at all, a NaN still gets the fast delay. The library's limiters must give the
// same answers as client-go's, call for call.
func TestNaNItemsInTheLimiters(t *testing.T) {
	type limiter = clientgo.TypedRateLimiter[float64]
	pairs := map[string][2]limiter{
		"exponential(1ms, 1s)": {
			clientgo.NewTypedItemExponentialFailureRateLimiter[float64](time.Millisecond, time.Second),
			actorqueue.NewTypedItemExponentialFailureRateLimiter[float64](time.Millisecond, time.Second),
		},
	}
	for _, attempts := range []int{-1, 0, 1, 2} {
		pairs[fmt.Sprintf("fastSlow(1ms, 1h, %d)", attempts)] = [2]limiter{
			clientgo.NewTypedItemFastSlowRateLimiter[float64](time.Millisecond, time.Hour, attempts),
			actorqueue.NewTypedItemFastSlowRateLimiter[float64](time.Millisecond, time.Hour, attempts),
		}
	}
	for name, p := range pairs {
		want, got := limiterCalls(p[0]), limiterCalls(p[1])
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: actorqueue answers\n\t%v\nclient-go answers\n\t%v", name, got, want)
		}
	}
}

// limiterCalls makes the same calls on l, with a NaN and an ordinary item, and returns the
// answers in order.
func limiterCalls(l clientgo.TypedRateLimiter[float64]) []any {
	nan := math.NaN()
	var answers []any
	for range 3 {
		answers = append(answers, l.When(nan), l.When(1))
	}
	answers = append(answers, l.NumRequeues(nan), l.NumRequeues(1))
	l.Forget(nan)
	return append(answers, l.When(nan), l.NumRequeues(1))
}

// TestNaNRetriedWithNoFastAttempts: through a rate-limiting queue, the fast delay of a NaN
// (here zero) adds it at once in both libraries, where any other item waits the slow hour.
func TestNaNRetriedWithNoFastAttempts(t *testing.T) {
	queues := map[string]clientgo.TypedRateLimitingInterface[float64]{
		"client-go": clientgo.NewTypedRateLimitingQueue(
			clientgo.NewTypedItemFastSlowRateLimiter[float64](0, time.Hour, 0)),
		"actorqueue": actorqueue.NewTypedRateLimitingQueue(
			actorqueue.NewTypedItemFastSlowRateLimiter[float64](0, time.Hour, 0)),
	}
	for name, q := range queues {
		q.AddRateLimited(math.NaN())
		q.AddRateLimited(1)
		if n := q.Len(); n != 1 {
			t.Errorf("%s: Len = %d after retrying NaN and 1, want 1 (NaN, at once)", name, n)
		}
		q.ShutDown()
	}
}
