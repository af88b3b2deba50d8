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
// controller-runtime's: use it where the wrapped queue was used (for controller-runtime, see
// package crshard, which keeps its priorities). Its methods are safe for simultaneous use by
// multiple goroutines.
//
//   - Add, AddAfter and AddRateLimited drop an item whose bucket this replica does not hold,
//     and count it (Metrics.KeyDropped, [Queue.Dropped]). [Queue.AddWith] does the same for
//     any other way of adding of the wrapped queue.
//   - Get hands out only items of buckets held now, each with a context that ends when the
//     reconcile must begin to stop ([Queue.Context]). An item of a bucket lost since it was
//     added is discarded there: Get calls Forget and Done on the wrapped queue and counts it.
//     An item of a bucket whose renewals are late, so that its keys' deadline has passed
//     (see the package documentation), is set aside and enqueued again once a renewal
//     succeeds, or dropped if the bucket is lost.
//   - Done ends the item's processing; a bucket being handed over waits for the Done of each of
//     its items handed out (see the package documentation). An item whose context ended while
//     its bucket stayed held is enqueued again.
//   - [Queue.Held] tells a reconcile, right before a write, whether and until when the
//     replica still holds the item's bucket.
//   - Len counts the discarded-to-be items too, until a Get reaches them, but not those set
//     aside.
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
	processing map[T]*handout[T]      // the items handed out and not yet done
	aside      map[int]map[T]struct{} // by bucket: items set aside while their tenure lapsed
}

// handout is one item handed out by Get, and its context (see Context): that of its tenure's
// keys, whose Value also answers Fence for it.
type handout[T comparable] struct {
	context.Context
	queue   *Queue[T]
	item    T
	holding *holding
	tenure  uint64 // the tenure it was handed out in: its hold is that tenure's
}

// Value returns the handout itself for Fence's key, and the tenure's keys' values otherwise.
func (h *handout[T]) Value(key any) any {
	if key == (fenceKey{}) {
		return fencer(h)
	}
	return h.Context.Value(key)
}

// held is Held of the item handed out as h.
func (h *handout[T]) held() (time.Time, bool) {
	h.queue.mu.Lock()
	current := h.queue.processing[h.item] == h
	h.queue.mu.Unlock()
	deadline, held := h.holding.current().Held(h.tenure, time.Now())
	return deadline, current && held
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
	q := &Queue[T]{inner: inner, sharder: s, hash: cfg.Hash, keys: cfg.Keys,
		processing: make(map[T]*handout[T]), aside: make(map[int]map[T]struct{})}
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
	q.drop(1)
	return false
}

// drop counts n items dropped.
func (q *Queue[T]) drop(n int) {
	for range n {
		q.dropped.Add(1)
		q.sharder.cfg.Metrics.KeyDropped()
	}
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

// AddWith passes to add, in their order, the items whose bucket is held, and drops the others
// as Add does; it does not call add when none is left. It serves the wrapped queue's other
// ways of adding, e.g. a priority queue's AddWithOpts:
//
//	q.AddWith(func(items ...string) { pq.AddWithOpts(opts, items...) }, keys...)
func (q *Queue[T]) AddWith(add func(items ...T), items ...T) {
	kept := make([]T, 0, len(items))
	for _, item := range items {
		if q.ours(item) {
			kept = append(kept, item)
		}
	}
	if len(kept) > 0 {
		add(kept...)
	}
}

// Get blocks until an item of a held bucket can be processed and returns it, discarding the
// items of buckets no longer held on the way. Once the wrapped queue is shut down and empty,
// it returns shutdown == true. Call Done with every item it returns.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	for {
		item, shutdown = q.inner.Get()
		if shutdown || q.admit(item) {
			return item, shutdown
		}
	}
}

// GetWithPriority is Get for a wrapped queue with priorities, such as the priority queue of
// package github.com/actorqueue/workqueue: it also returns the item's priority. If the wrapped
// queue has no GetWithPriority method, it is Get with priority 0.
func (q *Queue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	pq, ok := q.inner.(interface {
		GetWithPriority() (item T, priority int, shutdown bool)
	})
	if !ok {
		item, shutdown = q.Get()
		return item, 0, shutdown
	}
	for {
		item, priority, shutdown = pq.GetWithPriority()
		if shutdown || q.admit(item) {
			return item, priority, shutdown
		}
	}
}

// admit decides the fate of an item the wrapped queue handed out: it reports whether the item
// may be processed now, and otherwise sets it aside (its tenure has lapsed) or discards it (its
// bucket is not held), marking it done in the wrapped queue.
func (q *Queue[T]) admit(item T) bool {
	bucket := q.Bucket(item)
	h := q.sharder.holding(bucket)
	if h != nil {
		if keys, tenure, ok := h.enter(time.Now()); ok {
			q.mu.Lock()
			q.processing[item] = &handout[T]{Context: keys, queue: q, item: item, holding: h, tenure: tenure}
			q.mu.Unlock()
			return true
		}
	}
	q.mu.Lock()
	aside := h != nil && h.accepting()
	if aside {
		if q.aside[bucket] == nil {
			q.aside[bucket] = make(map[T]struct{})
		}
		q.aside[bucket][item] = struct{}{}
	}
	q.mu.Unlock()
	if !aside {
		q.inner.Forget(item)
	}
	q.inner.Done(item)
	if !aside {
		q.drop(1)
	} else if !h.lapsed(time.Now()) {
		q.resumed(bucket) // a renewal came between enter and the set-aside
	}
	return false
}

// Done marks item as processed. If its bucket is being handed over, the hand-over stops
// waiting for it. If the item's context ended while this replica still holds the bucket (its
// renewals fell behind: see [Queue.Context]), Done enqueues the item again, so that it is
// processed once they catch up, whatever the caller did about the cut: the cut was the
// sharder's, not the item's.
func (q *Queue[T]) Done(item T) {
	q.mu.Lock()
	h := q.processing[item]
	delete(q.processing, item)
	q.mu.Unlock()
	if h != nil && h.holding.cut(h.Context) {
		q.inner.Add(item)
	}
	q.inner.Done(item)
	if h != nil {
		h.holding.exit(h.tenure)
	}
}

// Context returns the context of item, which Get handed out: pass it to the reconcile. It ends
// when the reconcile must begin to stop: once less than the drain budget (Config.DrainBudget)
// is left of the bucket's hold window, as the latest renewal set it, so that a reconcile that
// returns within the budget of its context's end is done before another replica may take the
// bucket; when the item's tenure is interrupted (see the package documentation); or when
// this replica loses the bucket or hands it over. While the renewals succeed
// on time, it stays open, however long the reconcile runs. It has no deadline (Deadline
// reports none), since every renewal moves its end; [Queue.Held] and [Fence] return the end
// of the hold window as it stands. For an item not in processing, it returns a cancelled
// context.
//
// A context that ends while the replica still holds the bucket (its renewals are late, or its
// tenure was interrupted) is cut short: Done enqueues the item again, and it is handed out once
// a renewal catches up. A
// reconcile cut short by the bucket's loss or hand-over need not be retried here: the next
// holder lists the key (QueueConfig.Keys).
//
// The context's end is delivered by a timer, which runs late after a process pause: right
// before a write, check the clock instead, with [Queue.Held] or [Fence].
func (q *Queue[T]) Context(item T) context.Context {
	q.mu.Lock()
	h := q.processing[item]
	q.mu.Unlock()
	if h == nil {
		return cancelled
	}
	return h
}

// Held reports whether item is in processing here and this replica still holds its bucket by
// the clock, and returns the end of the bucket's hold window: until then, no other replica
// can have acquired the bucket (given the package's assumptions), and a write applied before
// it cannot meet another replica's processing of the item. Check it right before a write and
// give up unless the write will be applied, pauses included, well before deadline; ok is
// false once deadline has passed, for an item not handed out by Get or already done, and, for
// good, for an item handed out in a tenure that has been interrupted since (see the package
// documentation: the bucket may have been another replica's meanwhile; deadline is then zero).
//
// The item's context ends the drain budget before the deadline, as it stands then; the deadline
// moves with each renewal of the item's tenure. It is this replica's bound, from its own clock: it cannot see a
// write the API server applies after it, nor a clock that runs faster than
// Config.MaxClockDrift allows.
func (q *Queue[T]) Held(item T) (deadline time.Time, ok bool) {
	q.mu.Lock()
	h := q.processing[item]
	q.mu.Unlock()
	if h == nil {
		return time.Time{}, false
	}
	return h.held()
}

// fencer is what a key's context returns for fenceKey: its handout.
type fencer interface{ held() (time.Time, bool) }

type fenceKey struct{}

// Fence is [Queue.Held] for the item whose context ctx is, or derives from: the context a
// Queue's Context returns, which package crshard passes to controller-runtime reconcilers. For
// a context that does not derive from one, it returns ok == false.
func Fence(ctx context.Context) (deadline time.Time, ok bool) {
	f, _ := ctx.Value(fenceKey{}).(fencer)
	if f == nil {
		return time.Time{}, false
	}
	return f.held()
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
// included, those set aside excluded.
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

// resumed enqueues again the items of bucket set aside while its tenure had lapsed.
func (q *Queue[T]) resumed(bucket int) {
	q.mu.Lock()
	items := q.aside[bucket]
	delete(q.aside, bucket)
	q.mu.Unlock()
	for item := range items {
		q.inner.Add(item)
	}
}

// ended drops the items of bucket set aside: the bucket's tenure is over, and the next holder
// lists them when it acquires the bucket.
func (q *Queue[T]) ended(bucket int) {
	q.mu.Lock()
	n := len(q.aside[bucket])
	delete(q.aside, bucket)
	q.mu.Unlock()
	q.drop(n)
}
