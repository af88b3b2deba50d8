package workqueue

import (
	"runtime"

	"github.com/actorqueue/workqueue/actor"
	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue"
)

// TypedInterface is a work queue: see the package documentation.
type TypedInterface[T comparable] interface {
	// Add marks item as needing processing. It does nothing after shutdown.
	Add(item T)
	// Len returns the number of items waiting to be processed. It is informational: by the
	// time it returns, it may have changed.
	Len() int
	// Get blocks until an item can be processed and returns it. Once the queue is shut down and
	// empty, it returns shutdown == true at once. Call Done with every item it returns.
	Get() (item T, shutdown bool)
	// Done marks item as processed; if it was added again meanwhile, it is queued again.
	Done(item T)
	// ShutDown makes the queue ignore new items. Workers still receive the queued items, then
	// shutdown == true.
	ShutDown()
	// ShutDownWithDrain shuts the queue down as ShutDown does, then waits until no item is
	// being processed.
	ShutDownWithDrain()
	// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
	ShuttingDown() bool
}

// Interface is TypedInterface[any].
//
// Deprecated: use TypedInterface instead.
type Interface TypedInterface[any]

// Clock is what a queue needs from a clock: Now, Since and After. The real and fake clocks of
// k8s.io/utils/clock satisfy it.
type Clock = clock.Clock

// Queue is the storage of the items waiting in a queue, for queues that need an order other
// than first-in-first-out: client-go's Queue interface. A queue calls its methods from one
// goroutine at a time, its own, and only with items in a consistent state: Push with an item
// it does not hold, Touch with an item it holds, Pop when Len is positive. It makes callers
// wait while a custom Queue runs, so that a panic in it reaches the caller.
type Queue[T comparable] interface {
	// Touch is called when an item the storage holds is added again. A storage that orders by
	// priority may use it to move the item; a FIFO ignores it.
	Touch(item T)
	// Push stores a new item.
	Push(item T)
	// Len returns the number of stored items.
	Len() int
	// Pop removes and returns the next item to hand out.
	Pop() (item T)
}

// DefaultQueue returns the first-in-first-out storage that queues use by default.
func DefaultQueue[T comparable]() Queue[T] { return new(queue.FIFO[T]) }

// TypedQueueConfig configures a queue made by NewTypedWithConfig. The zero value is valid.
type TypedQueueConfig[T comparable] struct {
	// Name names the queue for its metrics. An unnamed queue records no metrics.
	Name string
	// MetricsProvider creates the queue's metrics instead of the global provider (SetProvider).
	// They run in the queue's goroutine and must not call the queue, or it hangs (see the
	// package documentation, "Code the queue runs").
	MetricsProvider MetricsProvider
	// Clock is the queue's clock; nil means the real one.
	Clock Clock
	// Queue stores the waiting items; nil means DefaultQueue. It cannot be set with Group. It
	// runs in the queue's goroutine and must not call the queue, or it hangs (see the package
	// documentation, "Code the queue runs").
	Queue Queue[T]
	// Group names each item's group: groups then take turns, round robin, first in, first out
	// within a group (see the package documentation, "Groups"). nil means no groups: one FIFO.
	// It runs in the queue's goroutine too, and must not call the queue, or it hangs.
	Group func(item T) string
	// MaxPerGroup is the most items of one group in processing at once; the others wait, counted
	// in Len. Zero means no limit; it needs Group, and must not be negative.
	MaxPerGroup int
	// Debounce holds each item added with Add or AddBatch back until its adds stop (see
	// Debounce, and the package documentation, "Debounce"). The zero value debounces nothing.
	Debounce Debounce
}

// QueueConfig is TypedQueueConfig[any].
//
// Deprecated: use TypedQueueConfig instead.
type QueueConfig = TypedQueueConfig[any]

// Typed is a work queue (see the package documentation). Create it with NewTyped or
// NewTypedWithConfig; its methods are safe for simultaneous use by multiple goroutines. It runs
// one goroutine until it shuts down; a queue dropped without ShutDown shuts down once the
// garbage collector finds it unreachable, which ends that goroutine.
type Typed[T comparable] struct {
	q *actor.Queue[T]
}

// Type is Typed[any].
//
// Deprecated: use Typed instead.
type Type = Typed[any]

// NewTyped returns a new, unnamed queue.
func NewTyped[T comparable]() *Typed[T] { return NewTypedWithConfig(TypedQueueConfig[T]{}) }

// NewTypedWithConfig returns a new queue configured by config.
// It panics, with a message that starts with "workqueue:", if MaxPerGroup is negative or set
// without Group, if Group and Queue are both set, or on a Debounce that checkDebounce refuses
// (a negative Window or MaxWait, a MaxWait without Window or below it).
func NewTypedWithConfig[T comparable](config TypedQueueConfig[T]) *Typed[T] {
	t, _ := newTyped(config, false)
	return t
}

// newTyped returns a new queue; a delaying one records the delayed-items gauge, and comes with
// its retries counter. Every metric is made before the queue's goroutine starts, so that a
// provider that fails leaves nothing running.
func newTyped[T comparable](config TypedQueueConfig[T], delaying bool) (*Typed[T], metrics.CounterMetric) {
	checkStorage("NewTypedWithConfig", config.Group, config.MaxPerGroup, config.Queue)
	checkDebounce("NewTypedWithConfig", config.Debounce)
	m := metrics.New[T](metrics.Config{Name: config.Name, Provider: config.MetricsProvider, Delayed: delaying,
		Debounce: config.Debounce.Window > 0})
	var retries metrics.CounterMetric
	if delaying { // after the queue's metrics, as client-go asks for them, and before the goroutine
		retries = metrics.NewRetries(config.Name, config.MetricsProvider)
	}
	t := &Typed[T]{q: actor.New(actor.Config[T]{
		Clock:       config.Clock,
		Storage:     config.Queue,
		Group:       config.Group,
		MaxPerGroup: config.MaxPerGroup,
		Metrics:     m,
		Delaying:    delaying,
		Debounce:    config.Debounce.rule(),
	})}
	// Shut down once unreachable (see actor.Queue.Abandon). A delayed item may still be due for a
	// getter waiting in Get, with no other reference to t: Get keeps t alive while it waits.
	runtime.AddCleanup(t, (*actor.Queue[T]).Abandon, t.q)
	return t, retries
}

// New returns a new, unnamed queue of any.
//
// Deprecated: use NewTyped instead.
func New() *Type { return NewWithConfig(QueueConfig{}) }

// NewWithConfig returns a new queue of any configured by config.
//
// Deprecated: use NewTypedWithConfig instead.
func NewWithConfig(config QueueConfig) *Type { return NewTypedWithConfig(config) }

// NewNamed returns a new queue of any with the given name.
//
// Deprecated: use NewWithConfig instead.
func NewNamed(name string) *Type { return NewWithConfig(QueueConfig{Name: name}) }

// Add marks item as needing processing. It does nothing after shutdown. It panics if item
// cannot be a map key.
func (q *Typed[T]) Add(item T) { q.q.Add(item) }

// Len returns the number of items waiting to be processed, items waiting out a debounce window
// or a delay not counted. It is exact when it returns, as client-go's is; once called, it
// mostly answers without waking the queue's goroutine (see the package documentation, "Len").
func (q *Typed[T]) Len() int { return q.q.Len() }

// Get blocks until an item can be processed and returns it. Once the queue is shut down and
// empty, it returns shutdown == true at once. Call Done with every item it returns.
func (q *Typed[T]) Get() (item T, shutdown bool) {
	defer runtime.KeepAlive(q) // a waiting getter keeps the queue from its cleanup (see newTyped)
	return q.q.Get()
}

// Done marks item as processed; if it was added again meanwhile, it is queued again. Done of an
// item that is not being processed does nothing.
func (q *Typed[T]) Done(item T) { q.q.Done(item) }

// ShutDown makes the queue ignore new items and ends any ShutDownWithDrain in progress. Workers
// still receive the queued items, then shutdown == true. It returns once the queue's goroutine
// has exited; calling it again does nothing.
func (q *Typed[T]) ShutDown() { q.q.ShutDown() }

// ShutDownWithDrain shuts the queue down as ShutDown does, then waits until no item is being
// processed: new items are ignored from the start, and workers still receive the queued ones.
// Items still waiting on AddAfter or AddRateLimited are dropped, as by ShutDown. Workers must
// call Done on every item they get, or it waits until ShutDown is called.
func (q *Typed[T]) ShutDownWithDrain() { q.q.ShutDownWithDrain() }

// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
func (q *Typed[T]) ShuttingDown() bool { return q.q.ShuttingDown() }
