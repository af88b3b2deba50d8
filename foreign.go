package workqueue

import (
	"sync"
	"time"

	"github.com/actorqueue/workqueue/actor"
	"github.com/actorqueue/workqueue/internal/keys"
	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
)

// foreignDelaying is a delaying queue around a queue whose delay heap this package may not use
// (see TypedDelayingQueueConfig.Queue). As in client-go, a goroutine of its own, an actor
// queue that holds only delays, passes each due item to the inner queue's Add; everything else
// is the inner queue's. Like client-go's, it looks at the inner queue's ShuttingDown whenever
// that goroutine wakes, and once the inner queue is shutting down, however it was shut down,
// it drops the items still delayed and the goroutine exits.
type foreignDelaying[T comparable] struct {
	TypedInterface[T]
	delays  *actor.Queue[T]
	retries metrics.CounterMetric // nil: none
}

func newForeignDelaying[T comparable](inner TypedInterface[T], c Clock, retries metrics.CounterMetric) *foreignDelaying[T] {
	d := &foreignDelaying[T]{TypedInterface: inner, retries: retries}
	d.delays = actor.New(actor.Config[T]{Clock: c, Forward: d.forward, StopWhen: inner.ShuttingDown})
	return d
}

// forward adds a due item to the inner queue, unless that is shutting down: the delays' owner
// then shuts itself down at the end of its turn (see actor.Config.StopWhen).
func (d *foreignDelaying[T]) forward(item T) {
	if !d.ShuttingDown() {
		d.TypedInterface.Add(item)
	}
}

// AddAfter adds item to the inner queue once delay has passed; a delay of zero or less adds it
// at once. It does nothing once the inner queue is shutting down.
func (d *foreignDelaying[T]) AddAfter(item T, delay time.Duration) {
	keys.Check("AddAfter", item)
	if d.ShuttingDown() {
		return
	}
	if delay <= 0 {
		d.TypedInterface.Add(item)
	} else {
		d.delays.AddAfter(item, delay, nil)
	}
	if d.retries != nil {
		d.retries.Inc()
	}
}

// ShutDown shuts the inner queue down and drops the items still delayed.
func (d *foreignDelaying[T]) ShutDown() {
	d.TypedInterface.ShutDown()
	d.delays.ShutDown()
}

// ShutDownWithDrain drains and shuts down the inner queue and drops the items still delayed.
func (d *foreignDelaying[T]) ShutDownWithDrain() {
	d.TypedInterface.ShutDownWithDrain()
	d.delays.ShutDown()
}

// foreignRateLimiting is a rate-limiting queue around a delaying queue this package did not
// build. Having no goroutine of ours to run in, it calls its limiter in the caller's
// goroutine, as client-go does for every queue, and keeps its counts of retries under a mutex
// of their own.
type foreignRateLimiting[T comparable] struct {
	TypedDelayingInterface[T]
	limiter *limiter.Handle[T] // never adopted; its Counter unused: the inner queue's AddAfter counts retries

	mu     sync.Mutex
	counts limiter.Counts[T]
}

// AddRateLimited adds item after the wait the limiter decides, or gives up on it (see the
// package documentation, "Retries"). It counts first and asks the limiter only for an item it
// keeps, as a queue of this package does; a limiter that panics takes the count back.
func (q *foreignRateLimiting[T]) AddRateLimited(item T) {
	keys.Check("AddRateLimited", item)
	q.mu.Lock()
	giveUp := q.counts.Count(item, q.limiter.Retries().Max)
	q.mu.Unlock()
	if giveUp {
		q.limiter.GiveUp(item)
		return
	}
	asked := false
	defer func() {
		if !asked {
			q.mu.Lock()
			q.counts.Uncount(item)
			q.mu.Unlock()
		}
	}()
	wait := q.limiter.WhenAt(item, time.Now())
	asked = true
	q.TypedDelayingInterface.AddAfter(item, wait)
}

// Forget makes the limiter forget item's failures, and drops its count of retries.
func (q *foreignRateLimiting[T]) Forget(item T) {
	keys.Check("Forget", item)
	q.limiter.Forget(item)
	q.mu.Lock()
	q.counts.Drop(item)
	q.mu.Unlock()
}

// NumRequeues returns the failures the limiter counts for item.
func (q *foreignRateLimiting[T]) NumRequeues(item T) int {
	keys.Check("NumRequeues", item)
	return q.limiter.NumRequeues(item)
}
