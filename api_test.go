package workqueue_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/actorqueue/workqueue"
)

// TestAPI uses every exported name of k8s.io/client-go/util/workqueue v0.37.2, with client-go's
// shapes, so that it compiles here only if a controller can switch by changing its import.
func TestAPI(t *testing.T) {
	// Interfaces, and the deprecated names as the defined types they are in client-go.
	var (
		q1 workqueue.TypedInterface[string]             = workqueue.NewTyped[string]()
		q2 workqueue.Interface                          = workqueue.New()
		q3 workqueue.TypedDelayingInterface[string]     = workqueue.NewTypedDelayingQueue[string]()
		q4 workqueue.DelayingInterface                  = workqueue.NewDelayingQueue()
		q5 workqueue.TypedRateLimitingInterface[string] = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		q6 workqueue.RateLimitingInterface              = workqueue.NewRateLimitingQueue(workqueue.DefaultControllerRateLimiter())
	)
	var typed *workqueue.Typed[string] = workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{
		Name:            "",
		MetricsProvider: nil,
		Clock:           nil,
		Queue:           workqueue.DefaultQueue[string](),
	})
	var untyped *workqueue.Type = workqueue.NewWithConfig(workqueue.QueueConfig{})
	var named *workqueue.Type = workqueue.NewNamed("")
	var storage workqueue.Queue[string] = workqueue.DefaultQueue[string]()
	storage.Push("a")
	storage.Touch("a")
	_ = storage.Len()
	_ = storage.Pop()

	queues := []interface{ ShutDown() }{q1, q2, q3, q4, q5, q6, typed, untyped, named}
	var logger any
	queues = append(queues,
		workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
			Logger: &logger, Name: "", MetricsProvider: nil, Clock: nil, Queue: nil,
		}),
		workqueue.NewDelayingQueueWithConfig(workqueue.DelayingQueueConfig{}),
		workqueue.TypedNewDelayingQueue[string](),
		workqueue.NewDelayingQueueWithCustomQueue(workqueue.New(), ""),
		workqueue.NewNamedDelayingQueue(""),
		workqueue.NewDelayingQueueWithCustomClock(newFakeClock(), ""),
		workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedItemBasedRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "", MetricsProvider: nil, Clock: nil, DelayingQueue: nil}),
		workqueue.NewRateLimitingQueueWithConfig(workqueue.DefaultItemBasedRateLimiter(), workqueue.RateLimitingQueueConfig{}),
		workqueue.NewNamedRateLimitingQueue(workqueue.DefaultItemBasedRateLimiter(), ""),
		workqueue.NewRateLimitingQueueWithDelayingInterface(workqueue.NewDelayingQueue(), workqueue.DefaultItemBasedRateLimiter()),
	)
	for _, q := range queues {
		q.ShutDown()
	}

	// Rate limiters: the struct types, their constructors and the deprecated aliases.
	limiters := []workqueue.TypedRateLimiter[any]{
		workqueue.DefaultControllerRateLimiter(),
		workqueue.DefaultItemBasedRateLimiter(),
		&workqueue.BucketRateLimiter{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
		&workqueue.TypedBucketRateLimiter[any]{Limiter: rate.NewLimiter(1, 1)},
		workqueue.NewItemExponentialFailureRateLimiter(time.Millisecond, time.Second),
		workqueue.NewItemFastSlowRateLimiter(time.Millisecond, time.Second, 3),
		workqueue.NewMaxOfRateLimiter(workqueue.DefaultItemBasedRateLimiter()),
		workqueue.NewWithMaxWaitRateLimiter(workqueue.DefaultItemBasedRateLimiter(), time.Second),
		workqueue.NewItemBucketRateLimiter(rate.Limit(1), 1),
	}
	var (
		_ *workqueue.ItemExponentialFailureRateLimiter             = workqueue.NewTypedItemExponentialFailureRateLimiter[any](0, 0).(*workqueue.TypedItemExponentialFailureRateLimiter[any])
		_ *workqueue.ItemFastSlowRateLimiter                       = workqueue.NewTypedItemFastSlowRateLimiter[any](0, 0, 0).(*workqueue.TypedItemFastSlowRateLimiter[any])
		_ *workqueue.MaxOfRateLimiter                              = workqueue.NewTypedMaxOfRateLimiter[any]().(*workqueue.TypedMaxOfRateLimiter[any])
		_ *workqueue.WithMaxWaitRateLimiter                        = workqueue.NewTypedWithMaxWaitRateLimiter[any](limiters[0], 0).(*workqueue.TypedWithMaxWaitRateLimiter[any])
		_ *workqueue.TypedItemBucketRateLimiter[string]            = workqueue.NewTypedItemBucketRateLimiter[string](1, 1)
		_ workqueue.RateLimiter                                    = &workqueue.TypedWithMaxWaitRateLimiter[any]{}
		_ workqueue.TypedRateLimiter[string]                       = workqueue.DefaultTypedItemBasedRateLimiter[string]()
		_ workqueue.TypedRateLimiter[string]                       = workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, 0)
		_ func(time.Duration, time.Duration) workqueue.RateLimiter = workqueue.NewItemExponentialFailureRateLimiter
	)
	for _, l := range limiters {
		l.When("a")
		l.NumRequeues("a")
		l.Forget("a")
	}

	// Metrics.
	var mp workqueue.MetricsProvider = &provider{}
	var (
		_ workqueue.GaugeMetric           = mp.NewDepthMetric("")
		_ workqueue.CounterMetric         = mp.NewAddsMetric("")
		_ workqueue.HistogramMetric       = mp.NewLatencyMetric("")
		_ workqueue.SummaryMetric         = mp.NewWorkDurationMetric("")
		_ workqueue.SettableGaugeMetric   = mp.NewUnfinishedWorkSecondsMetric("")
		_ func(workqueue.MetricsProvider) = workqueue.SetProvider
	)

	// Parallelizer.
	var piece workqueue.DoWorkPieceFunc = func(int) {}
	var opt workqueue.Options = workqueue.WithChunkSize(2)
	workqueue.ParallelizeUntil(context.Background(), 2, 4, piece, opt, workqueue.WithChunkSize(1))

	// From client-go's original design, and backoff: re-exported extras.
	var b workqueue.Backoff = workqueue.Backoff{Duration: time.Millisecond, Factor: 2, Jitter: 0, Steps: 1, Cap: time.Second}
	b.Step()
	_ = workqueue.Jitter(time.Second, 0.1)
	var m workqueue.BackoffManager = workqueue.NewExponentialBackoffManager(time.Millisecond, time.Second, time.Minute, 2, 0, nil)
	stop := make(chan struct{})
	close(stop)
	workqueue.BackoffUntil(func() {}, m, true, stop)
	var _ workqueue.Timer = m.Backoff()
}
