package actor

import (
	"time"

	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/metrics"
)

// Inner is the method set of a queue (client-go's TypedInterface): what [Delayer] needs from a
// queue of another package.
type Inner[T comparable] interface {
	Add(item T)
	Len() int
	Get() (item T, shutdown bool)
	Done(item T)
	ShutDown()
	ShutDownWithDrain()
	ShuttingDown() bool
}

// DelayingInner is an [Inner] with AddAfter (client-go's TypedDelayingInterface).
type DelayingInner[T comparable] interface {
	Inner[T]
	AddAfter(item T, delay time.Duration)
}

// Delayer adds AddAfter to a queue whose delay heap it may not use: one this package did not
// build, one of its queues on another clock, or one already served by a delaying queue. It is
// client-go's delaying queue around a custom queue: its own owner goroutine holds only its
// delay heap and passes due items to the inner queue's Add. Everything else is the inner
// queue's.
//
// Like client-go's, it looks at the inner queue's ShuttingDown whenever its goroutine wakes: for
// an AddAfter, a due item, or, on an injected clock, client-go's heartbeat every 10 s. Once the
// inner queue is shutting down, however it was shut down, no due item reaches its Add: the
// Delayer drops the items still delayed and its goroutine exits. On the real clock, where an
// idle queue never wakes, that is at its next wake or its own ShutDown; client-go's exits
// within 10 s.
type Delayer[T comparable] struct {
	Inner[T]
	delays  *Queue[T]
	retries metrics.CounterMetric
}

// NewDelayer returns a [Delayer] around inner, timing delays on c (nil: the real clock) and
// counting retries on retries when not nil.
func NewDelayer[T comparable](inner Inner[T], c clock.Clock, retries metrics.CounterMetric) *Delayer[T] {
	d := &Delayer[T]{Inner: inner, retries: retries}
	d.delays = New(Config[T]{Clock: c, Forward: d.forward, StopWhen: inner.ShuttingDown})
	return d
}

// forward adds a due item to the inner queue, unless that is shutting down: the owner then
// shuts itself down at the end of its turn (see Config.StopWhen).
func (d *Delayer[T]) forward(item T) {
	if !d.Inner.ShuttingDown() {
		d.Inner.Add(item)
	}
}

// AddAfter adds item to the inner queue once delay has passed; a delay of zero or less adds it
// at once. It does nothing once the inner queue is shutting down.
func (d *Delayer[T]) AddAfter(item T, delay time.Duration) {
	d.delays.check("AddAfter", item)
	if d.Inner.ShuttingDown() {
		return
	}
	if d.retries != nil {
		d.retries.Inc()
	}
	if delay <= 0 {
		d.Inner.Add(item)
		return
	}
	d.delays.AddAfter(item, delay, nil)
}

// ShutDown shuts the inner queue down and drops the items still delayed.
func (d *Delayer[T]) ShutDown() {
	d.Inner.ShutDown()
	d.delays.ShutDown()
}

// ShutDownWithDrain drains and shuts down the inner queue and drops the items still delayed.
func (d *Delayer[T]) ShutDownWithDrain() {
	d.Inner.ShutDownWithDrain()
	d.delays.ShutDown()
}

// Retrier adds rate-limited retries to a delaying queue this package did not build. Having no
// owner goroutine to call the limiter from, it calls it in the caller's goroutine, as client-go
// does for every queue.
type Retrier[T comparable] struct {
	DelayingInner[T]
	limiter *Limiter[T]
}

// NewRetrier returns a [Retrier] that retries items of inner after the waits l decides. Every
// call reaches l from a caller's goroutine, through its exported methods: a limiter of package
// limiter then takes its own lock, or, adopted by a queue, runs the call in that queue's owner.
func NewRetrier[T comparable](inner DelayingInner[T], l *Limiter[T]) *Retrier[T] {
	return &Retrier[T]{DelayingInner: inner, limiter: &Limiter[T]{limiter: l.limiter}}
}

// AddRateLimited adds item to the inner queue after the wait the limiter decides.
func (r *Retrier[T]) AddRateLimited(item T) {
	mustHash("AddRateLimited", item)
	r.DelayingInner.AddAfter(item, r.limiter.whenAt(item, time.Now()))
}

// Forget makes the limiter forget item's failures.
func (r *Retrier[T]) Forget(item T) {
	mustHash("Forget", item)
	r.limiter.forget(item)
}

// NumRequeues returns the failures the limiter counts for item.
func (r *Retrier[T]) NumRequeues(item T) int {
	mustHash("NumRequeues", item)
	return r.limiter.numRequeues(item)
}
