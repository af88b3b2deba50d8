package workqueue

import (
	"context"
	"runtime"
	"time"

	"github.com/actorqueue/workqueue/actor"
)

// TypedExtensions are the methods every queue this package builds has beyond client-go's
// interfaces. The constructors return client-go's interfaces, so reach them with a type
// assertion:
//
//	queue := workqueue.NewTypedRateLimitingQueue(limiter)
//	ext := queue.(workqueue.TypedExtensions[string])
//
// A delaying or rate-limiting queue built around a queue of another package (through the
// Queue or DelayingQueue config fields) does not have them.
type TypedExtensions[T comparable] interface {
	// AddBatch adds items in order, all at once: another goroutine sees all of them or none.
	AddBatch(items ...T)
	// GetWithContext is Get that gives up when ctx is done, returning ctx.Err(); a getter that
	// gives up takes no item.
	GetWithContext(ctx context.Context) (item T, shutdown bool, err error)
	// ShutDownWithDrainContext is ShutDownWithDrain that gives up when ctx is done, shuts down
	// as ShutDown does, and returns the items still being processed, with ctx.Err().
	ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error)
	// Snapshot returns the queue's counts at this instant.
	Snapshot() Snapshot
	TypedSuperseder[T]
}

// TypedSuperseder is a queue that tells the holder of an item whether it was added again since
// it was handed out, so that a long processing can stop early or skip a write already stale:
// every queue of this package, and any wrapper that knows more (a sharded queue, whose replica
// has handed the item's bucket over, can say so too). Superseded must be cheap and safe to call
// at any moment, from any goroutine.
type TypedSuperseder[T comparable] interface {
	// Superseded reports whether item, being processed, was added again since it was handed
	// out, so that it will be handed out again after its Done; false for an item that is not
	// being processed. See the package documentation, "Superseded".
	Superseded(item T) bool
}

// Snapshot is a queue's state at one instant, for debugging and dashboards. Taking one does
// not stop the queue: it is one command among the others. Its zero value is an empty queue's.
type Snapshot struct {
	// Queued counts the items waiting to be handed out: what Len returns.
	Queued int
	// Processing counts the items handed out whose Done has not been called.
	Processing int
	// Dirty counts the items being processed that were added again since: they are queued again
	// when their Done is called. (A priority queue: the items added again while handed out,
	// which wait for Done.)
	Dirty int
	// Delayed counts the items added with a delay that has not passed yet.
	Delayed int
	// Debouncing counts the items waiting out their debounce window (see the package
	// documentation, "Debounce"); zero for a queue without one. A FIFO queue's item delayed by
	// AddAfter and held by the window counts in both; a priority queue's counts here only.
	Debouncing int
	// OldestInFlight is how long the item processed for the longest time has been in
	// processing; zero when none is. A FIFO queue measures it from when it put the item on its
	// way to the workers, which is when a waiting worker takes it; when every worker was busy,
	// the time it then waited for one is counted too, so a stuck worker never looks younger
	// than it is.
	OldestInFlight time.Duration
	// ShuttingDown reports whether shutdown has begun.
	ShuttingDown bool
}

var _ TypedExtensions[string] = (*Typed[string])(nil)

// AddBatch adds items in order, all at once: a Len or Get on another goroutine sees all of them
// or none. It costs one command however many items there are, and the caller may reuse the
// slice at once. After shutdown it does nothing.
func (q *Typed[T]) AddBatch(items ...T) { q.q.AddBatch(items...) }

// GetWithContext is Get that gives up when ctx is done, and then returns ctx.Err(). A getter
// that gives up takes nothing, so no item is lost or left in processing: workers can be stopped
// this way without shutting the queue down.
func (q *Typed[T]) GetWithContext(ctx context.Context) (item T, shutdown bool, err error) {
	defer runtime.KeepAlive(q) // as in Get
	return q.q.GetWithContext(ctx)
}

// ShutDownWithDrainContext is ShutDownWithDrain that gives up when ctx is done: it then shuts
// the queue down as ShutDown does and returns the items that were still being processed, with
// ctx.Err(). When the drain completes first, it returns nil, nil.
func (q *Typed[T]) ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error) {
	return q.q.ShutDownWithDrainContext(ctx)
}

// Snapshot returns the queue's counts at this instant, for debugging; it does not stop the
// queue.
func (q *Typed[T]) Snapshot() Snapshot { return snapshot(q.q) }

// Superseded reports whether item, being processed, was added again since its getter took it:
// it is due again after its Done, or an add of it waits out a debounce window (a delayed add
// counts once it falls due). It is false for an item not being processed. It costs a few atomic
// reads, and a round trip to the queue's goroutine only while that goroutine has commands still
// to apply; it panics if item cannot be a map key. See the package documentation, "Superseded".
func (q *Typed[T]) Superseded(item T) bool { return q.q.Superseded(item) }

// snapshot returns the counts of q.
func snapshot[T comparable](q *actor.Queue[T]) (s Snapshot) {
	s.Queued, s.Processing, s.Dirty, s.Delayed, s.Debouncing, s.OldestInFlight, s.ShuttingDown = q.Snapshot()
	return s
}
