package workqueue_test

import (
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/time/rate"

	"github.com/actorqueue/workqueue"
)

// unkeyed returns &B{l}: the unkeyed literal client-go's users write for its bucket limiters,
// &workqueue.BucketRateLimiter{rate.NewLimiter(qps, burst)}. B's constraint holds, and so
// unkeyed compiles for B, exactly when that literal compiles: when B is a struct of one
// embedded *rate.Limiter. (Written out, the literal would fail go vet's composites check,
// which reports unkeyed literals of other packages' types, client-go's as ours.)
func unkeyed[B ~struct{ *rate.Limiter }](l *rate.Limiter) *B { return &B{l} }

// TestBucketLiteralsCompileAsInClientGo: the bucket limiters are built, unkeyed, as with
// client-go, and a queue uses them.
func TestBucketLiteralsCompileAsInClientGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		typed := workqueue.NewTypedRateLimitingQueue[string](
			unkeyed[workqueue.TypedBucketRateLimiter[string]](rate.NewLimiter(1, 1)))
		defer typed.ShutDown()
		untyped := workqueue.NewRateLimitingQueue(unkeyed[workqueue.BucketRateLimiter](rate.NewLimiter(1, 1)))
		defer untyped.ShutDown()

		typed.AddRateLimited("a") // the burst's one token
		typed.AddRateLimited("b") // the next, a second later
		untyped.AddRateLimited("a")
		untyped.AddRateLimited("b")
		synctest.Wait()
		assert.Equal(t, 1, typed.Len())
		assert.Equal(t, 1, untyped.Len())
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, 2, typed.Len())
		assert.Equal(t, 2, untyped.Len())
	})
}

// TestBucketsOverOneLimiterAreDeepEqual: a bucket limiter holds nothing but its rate.Limiter,
// as client-go's does, even while a queue has adopted it; and it may be copied (go vet checks
// that it holds no lock).
func TestBucketsOverOneLimiterAreDeepEqual(t *testing.T) {
	lim := rate.NewLimiter(10, 100)
	fresh := func() *workqueue.TypedBucketRateLimiter[string] {
		return &workqueue.TypedBucketRateLimiter[string]{Limiter: lim}
	}
	assert.True(t, reflect.DeepEqual(fresh(), fresh()), "two fresh ones")
	used := fresh()
	q := workqueue.NewTypedRateLimitingQueue[string](used)
	defer q.ShutDown()
	q.AddRateLimited("a")
	assert.True(t, reflect.DeepEqual(used, fresh()), "one a queue has adopted, and a fresh one")
	copied := *used
	assert.True(t, reflect.DeepEqual(&copied, fresh()), "a copy")
}
