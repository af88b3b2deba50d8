package priority

import (
	"time"

	"golang.org/x/time/rate"
	clientgo "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// opts are the options of AddWithOpts, the same in both libraries.
type opts struct {
	after       time.Duration
	rateLimited bool
	priority    *int
}

// queue is one queue under test: client-go's rate-limiting interface, which both satisfy, and
// the two methods of a priority queue, whose options type differs.
type queue interface {
	clientgo.TypedRateLimitingInterface[string]
	addWithOpts(o opts, items ...string)
	GetWithPriority() (item string, priority int, shutdown bool)
}

// theirs is controller-runtime's priority queue.
type theirs struct {
	priorityqueue.PriorityQueue[string]
}

func (q theirs) addWithOpts(o opts, items ...string) {
	q.AddWithOpts(priorityqueue.AddOpts{After: o.after, RateLimited: o.rateLimited, Priority: o.priority}, items...)
}

// ours is actorqueue's.
type ours struct {
	*actorqueue.TypedPriorityQueue[string]
}

func (q ours) addWithOpts(o opts, items ...string) {
	q.AddWithOpts(actorqueue.AddOpts{After: o.after, RateLimited: o.rateLimited, Priority: o.priority}, items...)
}

// variant is one way of building the two queues, the same in both libraries. build is called
// inside the bubble, so that the queues' goroutines and timers belong to it; it returns the
// metrics each side records into, or nil.
type variant struct {
	name  string
	build func() (controllerRuntime, actorQueue queue, metrics [2]*tally)
}

// The exponential limiters of the variants start at 1 ms and stop at 20 ms, so that sequences
// reach their caps at the sixth failure.
const (
	baseDelay = time.Millisecond
	maxDelay  = 20 * time.Millisecond
)

// variants are the queues with their default rate limiter (5 ms doubling up to 1000 s) and no
// metrics; with metrics, recorded by a provider each; with client-go's exponential limiter on
// both sides (for actorqueue, a limiter from another package, which the caller of AddWithOpts
// asks in its own goroutine); and with a maximum of an exponential and a token bucket limiter
// of 100 per second with a burst of 3, each library's own.
func variants() []variant {
	return []variant{
		{"default", func() (queue, queue, [2]*tally) {
			return theirs{priorityqueue.New[string]("")},
				ours{actorqueue.NewTypedPriorityQueue(actorqueue.TypedPriorityQueueConfig[string]{})}, [2]*tally{}
		}},
		withMetrics("metrics", func(t *tally) actorqueue.MetricsProvider { return actorQueueProvider{t} }),
		{"client-go-limiter", func() (queue, queue, [2]*tally) {
			return theirs{priorityqueue.New("", func(o *priorityqueue.Opts[string]) {
					o.RateLimiter = clientgo.NewTypedItemExponentialFailureRateLimiter[string](baseDelay, maxDelay)
				})},
				ours{actorqueue.NewTypedPriorityQueue(actorqueue.TypedPriorityQueueConfig[string]{
					RateLimiter: clientgo.NewTypedItemExponentialFailureRateLimiter[string](baseDelay, maxDelay),
				})}, [2]*tally{}
		}},
		{"max-of-bucket", func() (queue, queue, [2]*tally) {
			return theirs{priorityqueue.New("", func(o *priorityqueue.Opts[string]) {
					o.RateLimiter = clientgo.NewTypedMaxOfRateLimiter(
						clientgo.NewTypedItemExponentialFailureRateLimiter[string](baseDelay, maxDelay),
						&clientgo.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(100, 3)})
				})},
				ours{actorqueue.NewTypedPriorityQueue(actorqueue.TypedPriorityQueueConfig[string]{
					RateLimiter: actorqueue.NewTypedMaxOfRateLimiter(
						actorqueue.NewTypedItemExponentialFailureRateLimiter[string](baseDelay, maxDelay),
						&actorqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(100, 3)}),
				})}, [2]*tally{}
		}},
	}
}

// withMetrics returns the variant in which each queue records its metrics in a tally, through
// the provider provide returns for actorqueue's, and both rate limiters are exponential.
func withMetrics(name string, provide func(*tally) actorqueue.MetricsProvider) variant {
	return variant{name, func() (queue, queue, [2]*tally) {
		m := [2]*tally{new(tally), new(tally)}
		return theirs{priorityqueue.New("stress", func(o *priorityqueue.Opts[string]) {
				o.MetricProvider = clientGoProvider{m[0]}
				o.RateLimiter = clientgo.NewTypedItemExponentialFailureRateLimiter[string](baseDelay, maxDelay)
			})},
			ours{actorqueue.NewTypedPriorityQueue(actorqueue.TypedPriorityQueueConfig[string]{
				Name:            "stress",
				MetricsProvider: provide(m[1]),
				RateLimiter:     actorqueue.NewTypedItemExponentialFailureRateLimiter[string](baseDelay, maxDelay),
			})}, m
	}}
}
