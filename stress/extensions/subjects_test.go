package extensions

import (
	"time"

	"github.com/actorqueue/workqueue"
)

// subject is the queue of a round, with the views its kind has: delayed and limited are nil
// for a queue without AddAfter or without a rate limiter.
type subject struct {
	plain   workqueue.TypedInterface[int]
	ext     workqueue.TypedExtensions[int]
	delayed workqueue.TypedDelayingInterface[int]
	limited workqueue.TypedRateLimitingInterface[int]
}

// newSubject returns the views of q. It panics if q lacks the extensions: every queue of a
// kind below must have them.
func newSubject(q workqueue.TypedInterface[int]) subject {
	ext, ok := q.(workqueue.TypedExtensions[int])
	if !ok {
		panic("extensions: the queue under test has no TypedExtensions")
	}
	d, _ := q.(workqueue.TypedDelayingInterface[int])
	r, _ := q.(workqueue.TypedRateLimitingInterface[int])
	return subject{plain: q, ext: ext, delayed: d, limited: r}
}

// kind is one way of building the queue of a round. Each takes another path through the
// owner: items read ahead into the getters' channel or handed to each getter that asks,
// callers that return at once or wait for the owner's answer.
type kind struct {
	name  string
	build func() subject
}

// retryLimiter is the limiter of the rate-limiting kinds: retries fall due within the round.
func retryLimiter() workqueue.TypedRateLimiter[int] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[int](20*time.Microsecond, 2*time.Millisecond)
}

// customStorage is a storage of the test's own, so the queue neither reads ahead (a storage
// of another package may reorder) nor lets callers return before the owner has run it.
type customStorage struct{ workqueue.Queue[int] }

func customQueue() *workqueue.Typed[int] {
	return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[int]{Queue: customStorage{workqueue.DefaultQueue[int]()}})
}

var kinds = []kind{
	{"plain", func() subject { return newSubject(workqueue.NewTyped[int]()) }},
	{"custom storage", func() subject { return newSubject(customQueue()) }},
	{"rate-limiting", func() subject { return newSubject(workqueue.NewTypedRateLimitingQueue(retryLimiter())) }},
	{"rate-limiting over custom storage", func() subject {
		delaying := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[int]{Queue: customQueue()})
		return newSubject(workqueue.NewTypedRateLimitingQueueWithConfig(retryLimiter(),
			workqueue.TypedRateLimitingQueueConfig[int]{DelayingQueue: delaying}))
	}},
}

// kindOf returns the kind a round with the given seed runs on: consecutive seeds cycle
// through them.
func kindOf(seed uint64) kind { return kinds[seed%uint64(len(kinds))] }
