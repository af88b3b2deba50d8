package sharding

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue"
)

// QueueConfig configures a [Queue] made by [Wrap].
type QueueConfig[T comparable] struct {
	// Hash hashes an item; its bucket is BucketOf(Hash(item), Buckets). Nil means HashKey for
	// a queue of strings, and is an error for any other type. Use HashNamespace, or Hash of
	// the object's UID, to match a server-side shard selector (see [ShardSelector]).
	Hash func(item T) uint64
	// Keys lists the items of a bucket this replica has just acquired, typically from an
	// informer's lister, so that the queue processes them: events that arrived while
	// another replica held the bucket were dropped here. It runs in the election's goroutine
	// of that bucket; items of other buckets among them are ignored, so it may return every
	// key. Nil lists none, which
	// loses those events: leave it nil only if something else re-adds every key, e.g. a
	// periodic resync shorter than your tolerance.
	Keys func(bucket int) []T
}

// Queue wraps a rate-limiting queue of package github.com/actorqueue/workqueue (or any
// implementation of its interface) so that it processes only the keys of the buckets this
// replica holds. It implements workqueue.TypedRateLimitingInterface[T], and so client-go's and
// controller-runtime's: use it where the wrapped queue was used. Its methods are safe for
// simultaneous use by multiple goroutines.
//
//   - Add, AddAfter and AddRateLimited drop an item whose bucket this replica does not hold,
//     and count it (Metrics.KeyDropped, [Queue.Dropped]).
//   - Get hands out only items of buckets held now. An item of a bucket lost since it was
//     added is discarded there: Get calls Forget and Done on the wrapped queue and counts it.
//   - Done ends the item's processing; a bucket being handed over waits for the Done of each of
//     its items handed out (see the package documentation).
//   - Len counts the discarded-to-be items too, until a Get reaches them.
//   - ShutDown, ShutDownWithDrain and ShuttingDown are the wrapped queue's. The sharder is
//     separate: stop it (cancel Run's context) before shutting the queue down, so that the
//     buckets drain while workers still call Done.
type Queue[T comparable] struct {
	inner   workqueue.TypedRateLimitingInterface[T]
	sharder *Sharder
	hash    func(T) uint64
	keys    func(bucket int) []T
	dropped atomic.Uint64

	mu         sync.Mutex
	processing map[T]*tenure // the tenure each handed-out item entered
}

var _ workqueue.TypedRateLimitingInterface[string] = (*Queue[string])(nil)

// Wrap returns a Queue around inner that takes only keys of the buckets s holds, and
// enqueues the keys of each bucket s acquires from now on (and of those it holds already)
// with cfg.Keys. It panics with a "sharding:" message if s or inner is nil, or if cfg.Hash is
// nil for items that are not strings.
func Wrap[T comparable](s *Sharder, inner workqueue.TypedRateLimitingInterface[T], cfg QueueConfig[T]) *Queue[T] {
	if s == nil {
		panic("sharding: Wrap: nil Sharder")
	}
	if inner == nil {
		panic("sharding: Wrap: nil queue")
	}
	if cfg.Hash == nil {
		hash, ok := any(HashKey).(func(T) uint64)
		if !ok {
			panic("sharding: Wrap: QueueConfig.Hash is nil and the items are not strings")
		}
		cfg.Hash = hash
	}
	q := &Queue[T]{inner: inner, sharder: s, hash: cfg.Hash, keys: cfg.Keys, processing: make(map[T]*tenure)}
	s.attach(q)
	return q
}

// Bucket returns item's bucket.
func (q *Queue[T]) Bucket(item T) int { return BucketOf(q.hash(item), q.sharder.cfg.Buckets) }

// ours reports whether item's bucket is held, and counts the item as dropped if not.
func (q *Queue[T]) ours(item T) bool {
	if q.sharder.Holds(q.Bucket(item)) {
		return true
	}
	q.dropped.Add(1)
	q.sharder.cfg.Metrics.KeyDropped()
	return false
}

// Add adds item if its bucket is held; otherwise it drops it.
func (q *Queue[T]) Add(item T) {
	if q.ours(item) {
		q.inner.Add(item)
	}
}

// AddAfter adds item after duration if its bucket is held; otherwise it drops it. A bucket
// lost before the item is handed out discards it then.
func (q *Queue[T]) AddAfter(item T, duration time.Duration) {
	if q.ours(item) {
		q.inner.AddAfter(item, duration)
	}
}

// AddRateLimited adds item after the rate limiter's wait if its bucket is held; otherwise it
// drops it, and the rate limiter does not count the failure.
func (q *Queue[T]) AddRateLimited(item T) {
	if q.ours(item) {
		q.inner.AddRateLimited(item)
	}
}

// Get blocks until an item of a held bucket can be processed and returns it, discarding the
// items of buckets no longer held on the way. Once the wrapped queue is shut down and empty,
// it returns shutdown == true. Call Done with every item it returns.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	for {
		item, shutdown = q.inner.Get()
		if shutdown {
			return item, true
		}
		if t := q.sharder.tenure(q.Bucket(item)); t != nil && t.enter(time.Now()) {
			q.mu.Lock()
			q.processing[item] = t
			q.mu.Unlock()
			return item, false
		}
		q.inner.Forget(item)
		q.inner.Done(item)
		q.dropped.Add(1)
		q.sharder.cfg.Metrics.KeyDropped()
	}
}

// Done marks item as processed. If its bucket is being handed over, the hand-over stops
// waiting for it.
func (q *Queue[T]) Done(item T) {
	q.mu.Lock()
	t := q.processing[item]
	delete(q.processing, item)
	q.mu.Unlock()
	q.inner.Done(item)
	if t != nil {
		t.exit()
	}
}

// Context returns the context of the tenure under which Get handed item out: it is cancelled
// when this replica loses the item's bucket, so that a reconcile can stop before another
// replica may take the bucket (see the package documentation). For an item not in processing,
// it returns a cancelled context.
func (q *Queue[T]) Context(item T) context.Context {
	q.mu.Lock()
	t := q.processing[item]
	q.mu.Unlock()
	if t == nil {
		return cancelled
	}
	return t.ctx
}

// cancelled is the context Context returns for an item not in processing.
var cancelled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// Dropped returns the number of items this queue refused or discarded because their bucket
// was not held.
func (q *Queue[T]) Dropped() uint64 { return q.dropped.Load() }

// Forget makes the rate limiter stop tracking item.
func (q *Queue[T]) Forget(item T) { q.inner.Forget(item) }

// NumRequeues returns how many failures the rate limiter counts for item.
func (q *Queue[T]) NumRequeues(item T) int { return q.inner.NumRequeues(item) }

// Len returns the number of items waiting, those of buckets lost since they were added
// included.
func (q *Queue[T]) Len() int { return q.inner.Len() }

// ShutDown shuts the wrapped queue down.
func (q *Queue[T]) ShutDown() { q.inner.ShutDown() }

// ShutDownWithDrain shuts the wrapped queue down and waits until no item is in processing.
func (q *Queue[T]) ShutDownWithDrain() { q.inner.ShutDownWithDrain() }

// ShuttingDown reports whether the wrapped queue is shutting down.
func (q *Queue[T]) ShuttingDown() bool { return q.inner.ShuttingDown() }

// acquired enqueues the keys of a bucket this replica has just acquired.
func (q *Queue[T]) acquired(bucket int) {
	if q.keys == nil {
		return
	}
	for _, item := range q.keys(bucket) {
		if q.Bucket(item) == bucket {
			q.Add(item)
		}
	}
}
