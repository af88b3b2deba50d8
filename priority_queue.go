package workqueue

import (
	"context"
	"runtime"
	"time"

	"github.com/actorqueue/workqueue/actor"
	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
)

// AddOpts are the options of AddWithOpts, with the fields of controller-runtime's
// priorityqueue.AddOpts. The zero value adds an item ready at once, at priority zero.
type AddOpts struct {
	// After delays the item; zero or less makes it ready at once.
	After time.Duration
	// RateLimited delays the item by the wait the queue's rate limiter decides, if that is
	// shorter than After (or After is zero).
	RateLimited bool
	// Priority ranks the item; higher goes first. nil means zero.
	Priority *int
}

// TypedPriorityInterface is a rate-limiting queue with priorities and the semantics of
// controller-runtime's priority queue (sigs.k8s.io/controller-runtime/pkg/controller/
// priorityqueue, v0.25). Its methods are the ones of that package's PriorityQueue, whose
// AddWithOpts takes that package's own AddOpts type: wrap a TypedPriorityQueue to hand it to
// controller-runtime (the controllerruntime module of this repository does).
type TypedPriorityInterface[T comparable] interface {
	TypedRateLimitingInterface[T]
	// AddWithOpts adds items with the options o. An item already ready or waiting keeps the
	// higher of its priorities and the earlier of its instants; raised, it goes behind the
	// items already at its new priority.
	AddWithOpts(o AddOpts, items ...T)
	// GetWithPriority is Get that also returns the item's priority.
	GetWithPriority() (item T, priority int, shutdown bool)
}

// TypedPriorityQueueConfig configures a queue made by NewTypedPriorityQueue. The zero value is
// valid.
type TypedPriorityQueueConfig[T comparable] struct {
	// Name names the queue for its metrics. An unnamed queue records no metrics.
	Name string
	// MetricsProvider creates the queue's metrics instead of the global provider (SetProvider).
	// They run in the queue's goroutine and must not call the queue, or it hangs (see the
	// package documentation, "Code the queue runs").
	// If it also implements the depth by priority of package metrics (PriorityProvider), the
	// depth is recorded by priority, as controller-runtime does.
	MetricsProvider MetricsProvider
	// Clock times the delays of AddAfter and AddRateLimited; nil means the real clock. The
	// metrics read the real clock, as controller-runtime's do, whatever this is; only their
	// unfinished-work gauges move on this clock, every 500 ms of it.
	Clock Clock
	// RateLimiter decides AddRateLimited's waits; nil means controller-runtime's default, a
	// per-item exponential backoff from 5ms doubling up to 1000s.
	RateLimiter TypedRateLimiter[T]
	// Group names each item's group: within each priority, groups then take turns, round robin,
	// in order within a group (see the package documentation, "Groups"). nil means no groups.
	// It runs in the queue's goroutine too, and must not call the queue, or it hangs.
	Group func(item T) string
	// MaxPerGroup is the most items of one group handed out at once; the others wait, counted
	// in Len. Zero means no limit; it needs Group, and must not be negative.
	MaxPerGroup int
	// MaxRetries is the most rate-limited requeues of an item (AddRateLimited, or AddWithOpts
	// with RateLimited) since its last Forget; the next one gives up on it instead (see the
	// package documentation, "Retries"). Zero means no maximum; it must not be negative.
	MaxRetries int
	// GiveUp, when set, is called with an item given up on and its attempts (MaxRetries + 1),
	// in the goroutine of the call that gave up, once the queue has forgotten the item. It
	// needs MaxRetries.
	GiveUp func(item T, attempts int)
	// Debounce holds the items of plain adds (Add, AddBatch, AddWithOpts with neither After nor
	// RateLimited) back until their adds stop (see Debounce, and the package documentation,
	// "Debounce"). The zero value debounces nothing.
	Debounce Debounce
}

// TypedPriorityQueue is a queue with priorities and the rules of controller-runtime's priority
// queue, run by one goroutine. Create it with NewTypedPriorityQueue; its methods are safe for
// simultaneous use by multiple goroutines.
//
// It differs from a client-go queue: a delayed add and an add of the same item merge, so a
// waiting item added again without a delay is ready at once and does not fire again later; an
// item added while it is processed waits, as a new entry, until Done; Len counts only ready
// items; and once shutting down, Get returns shutdown == true at once, without handing out the
// items still ready, nor make waiting items ready. ShutDownWithDrain does wait for the items
// in processing (controller-runtime's only shuts down).
type TypedPriorityQueue[T comparable] struct {
	q       *actor.PriorityQueue[T]
	limiter *limiter.Handle[T]
}

var (
	_ TypedPriorityInterface[string] = (*TypedPriorityQueue[string])(nil)
	_ TypedExtensions[string]        = (*TypedPriorityQueue[string])(nil)
)

// NewTypedPriorityQueue returns a new priority queue configured by config. It panics, with a
// message that starts with "workqueue:", if MaxPerGroup or MaxRetries is negative, MaxPerGroup
// is set without Group, GiveUp without MaxRetries, or on a Debounce that NewTypedWithConfig
// refuses.
func NewTypedPriorityQueue[T comparable](config TypedPriorityQueueConfig[T]) *TypedPriorityQueue[T] {
	checkGroups("NewTypedPriorityQueue", config.Group, config.MaxPerGroup)
	checkRetries("NewTypedPriorityQueue", config.MaxRetries, config.GiveUp)
	checkDebounce("NewTypedPriorityQueue", config.Debounce)
	rl := config.RateLimiter
	if rl == nil {
		rl = NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second)
	}
	// Every metric before the queue starts, so that a provider that fails leaves nothing running.
	m := metrics.New[T](metrics.Config{Name: config.Name, Provider: config.MetricsProvider, Priority: true,
		Debounce: config.Debounce.Window > 0})
	retries := limiter.Retries[T]{Max: config.MaxRetries, GiveUp: config.GiveUp}
	if config.MaxRetries > 0 {
		retries.GivenUp = metrics.NewGivenUp(config.Name, config.MetricsProvider)
	}
	q := actor.NewPriority(actor.Config[T]{
		Clock:       config.Clock,
		Metrics:     m,
		Group:       config.Group,
		MaxPerGroup: config.MaxPerGroup,
		Debounce:    config.Debounce.rule(),
	})
	pq := &TypedPriorityQueue[T]{q: q, limiter: q.Adopt("NewTypedPriorityQueue", rl, retries)}
	runtime.AddCleanup(pq, (*actor.PriorityQueue[T]).Abandon, q) // see actor.Queue.Abandon
	return pq
}

// Add adds item, ready at once, at priority zero; an item already ready or waiting becomes
// ready, and keeps its priority if higher. It does nothing after shutdown.
func (q *TypedPriorityQueue[T]) Add(item T) { q.q.Add(item) }

// AddAfter adds item after duration; zero or less adds it at once. A debounce window does not
// hold it: its timing is decided.
func (q *TypedPriorityQueue[T]) AddAfter(item T, duration time.Duration) {
	q.q.AddWithOpts(duration, false, true, nil, q.limiter, item)
}

// AddRateLimited adds item after the wait the rate limiter decides. With a maximum of retries,
// it gives up on an item that has reached it instead.
func (q *TypedPriorityQueue[T]) AddRateLimited(item T) {
	q.AddWithOpts(AddOpts{RateLimited: true}, item)
}

// AddWithOpts adds items with the options o (see TypedPriorityInterface). With a maximum of
// retries and o.RateLimited, each item counts a retry, and the items that reach the maximum are
// given up on, once the others are added.
func (q *TypedPriorityQueue[T]) AddWithOpts(o AddOpts, items ...T) {
	q.q.AddWithOpts(o.After, o.RateLimited, false, o.Priority, q.limiter, items...)
}

// AddBatch adds items at once, ready now, at priority zero: AddWithOpts with no options.
func (q *TypedPriorityQueue[T]) AddBatch(items ...T) { q.q.AddBatch(items...) }

// Forget makes the rate limiter stop tracking item, and resets its count of retries.
func (q *TypedPriorityQueue[T]) Forget(item T) { q.q.Forget(item, q.limiter) }

// NumRequeues returns how many failures the rate limiter counts for item.
func (q *TypedPriorityQueue[T]) NumRequeues(item T) int { return q.q.NumRequeues(item, q.limiter) }

// Get blocks until an item can be handed out: the highest priority first, in order within a
// priority. Once the queue is shutting down it returns shutdown == true at once.
func (q *TypedPriorityQueue[T]) Get() (item T, shutdown bool) {
	defer runtime.KeepAlive(q) // as in Typed.Get
	return q.q.Get()
}

// GetWithPriority is Get that also returns the item's priority.
func (q *TypedPriorityQueue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	defer runtime.KeepAlive(q) // as in Typed.Get
	return q.q.GetWithPriority()
}

// GetWithContext is Get that gives up when ctx is done, returning ctx.Err(); a getter that gives
// up takes no item.
func (q *TypedPriorityQueue[T]) GetWithContext(ctx context.Context) (item T, shutdown bool, err error) {
	defer runtime.KeepAlive(q) // as in Typed.Get
	return q.q.GetWithContext(ctx)
}

// Done marks item as processed, so that it may be handed out again if it was added meanwhile.
func (q *TypedPriorityQueue[T]) Done(item T) { q.q.Done(item) }

// Len returns the number of ready items, those added again while processed included; waiting
// items (delayed, or waiting out a debounce window) are not counted. Once called, it mostly
// answers without waking the queue's goroutine (see the package documentation, "Len").
func (q *TypedPriorityQueue[T]) Len() int { return q.q.Len() }

// ShutDown makes the queue ignore new items, hand out no more and leave waiting items waiting,
// and returns once the queue's goroutine has exited.
func (q *TypedPriorityQueue[T]) ShutDown() { q.q.ShutDown() }

// ShutDownWithDrain shuts the queue down as ShutDown does, then waits until no item is being
// processed. Items still waiting (added with After or RateLimited) are dropped, as by ShutDown.
func (q *TypedPriorityQueue[T]) ShutDownWithDrain() { q.q.ShutDownWithDrain() }

// ShutDownWithDrainContext is ShutDownWithDrain that gives up when ctx is done and returns the
// items still being processed, with ctx.Err().
func (q *TypedPriorityQueue[T]) ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error) {
	return q.q.ShutDownWithDrainContext(ctx)
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
func (q *TypedPriorityQueue[T]) ShuttingDown() bool { return q.q.ShuttingDown() }

// Snapshot returns the queue's counts at this instant. Dirty counts the items added again while
// processed, which wait for Done.
func (q *TypedPriorityQueue[T]) Snapshot() Snapshot { return snapshot(q.q.Queue) }

// Superseded reports whether item, being processed, was added again since it was handed out: a
// ready entry of it waits for its Done, or an add of it waits out a debounce window. An entry
// delayed by AddAfter or a rate limiter supersedes it once it falls due. It is false for an
// item not being processed. See TypedSuperseder and the package documentation, "Superseded".
func (q *TypedPriorityQueue[T]) Superseded(item T) bool { return q.q.Superseded(item) }
