package concurrent

import (
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// queue is the queue of a round, with the views its kind has: delayed and limited are nil
// for a queue without AddAfter or without a rate limiter.
type queue struct {
	plain   actorqueue.TypedInterface[int]
	delayed actorqueue.TypedDelayingInterface[int]
	limited actorqueue.TypedRateLimitingInterface[int]
	depth   *depthGauge // the queue's depth metric, when it has metrics
}

func newQueue(q actorqueue.TypedInterface[int], depth *depthGauge) queue {
	d, _ := q.(actorqueue.TypedDelayingInterface[int])
	r, _ := q.(actorqueue.TypedRateLimitingInterface[int])
	return queue{plain: q, delayed: d, limited: r, depth: depth}
}

// variant is one way of building the queue of a round. Each takes a different path through
// actorqueue: read ahead or not, callers waiting for the owner or not.
type variant struct {
	name  string
	build func() queue
}

var variants = []variant{
	{"plain", func() queue { return newQueue(actorqueue.NewTyped[int](), nil) }},
	{"delaying", func() queue { return newQueue(actorqueue.NewTypedDelayingQueue[int](), nil) }},
	{"rate-limiting", func() queue {
		return newQueue(actorqueue.NewTypedRateLimitingQueue(actorqueue.NewTypedMaxOfRateLimiter(
			actorqueue.NewTypedItemExponentialFailureRateLimiter[int](100*time.Microsecond, 10*time.Millisecond),
			&actorqueue.TypedBucketRateLimiter[int]{Limiter: rate.NewLimiter(2000, 50)},
		)), nil)
	}},
	// A limiter from another package is foreign code: callers of AddRateLimited, Forget and
	// NumRequeues wait for the owner to run it.
	{"rate-limiting-with-client-go-limiter", func() queue {
		return newQueue(actorqueue.NewTypedRateLimitingQueue(clientgo.NewTypedMaxOfRateLimiter(
			clientgo.NewTypedItemExponentialFailureRateLimiter[int](100*time.Microsecond, 10*time.Millisecond),
			&clientgo.TypedBucketRateLimiter[int]{Limiter: rate.NewLimiter(2000, 50)},
		)), nil)
	}},
	// With metrics, every call waits for the owner; the depth gauge must follow Len.
	{"rate-limiting-with-metrics", func() queue {
		p := &depthProvider{depth: new(depthGauge)}
		return newQueue(actorqueue.NewTypedRateLimitingQueueWithConfig(
			actorqueue.NewTypedItemExponentialFailureRateLimiter[int](100*time.Microsecond, 10*time.Millisecond),
			actorqueue.TypedRateLimitingQueueConfig[int]{Name: "stress", MetricsProvider: p},
		), p.depth)
	}},
}

// depthGauge is a queue's depth metric: it counts, and remembers whether it ever went below
// zero. The queue's owner moves it; the test reads it.
type depthGauge struct {
	n        atomic.Int64
	negative atomic.Bool
}

func (g *depthGauge) Inc() { g.n.Add(1) }

func (g *depthGauge) Dec() {
	if g.n.Add(-1) < 0 {
		g.negative.Store(true)
	}
}

// depthProvider is a metrics provider whose only live metric is the depth gauge.
type depthProvider struct{ depth *depthGauge }

// ignored is a metric that records nothing.
type ignored struct{}

func (ignored) Inc()            {}
func (ignored) Set(float64)     {}
func (ignored) Observe(float64) {}

func (p *depthProvider) NewDepthMetric(string) actorqueue.GaugeMetric          { return p.depth }
func (*depthProvider) NewAddsMetric(string) actorqueue.CounterMetric           { return ignored{} }
func (*depthProvider) NewLatencyMetric(string) actorqueue.HistogramMetric      { return ignored{} }
func (*depthProvider) NewWorkDurationMetric(string) actorqueue.HistogramMetric { return ignored{} }
func (*depthProvider) NewRetriesMetric(string) actorqueue.CounterMetric        { return ignored{} }
func (*depthProvider) NewUnfinishedWorkSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return ignored{}
}
func (*depthProvider) NewLongestRunningProcessorSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return ignored{}
}
