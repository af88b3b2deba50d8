package actor

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/internal/mutant"
	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue"
)

// readySize is how many reserved items may wait in ready for a getter.
const readySize = 32

// Config describes a queue. The zero value is a FIFO queue on the real clock without metrics.
type Config[T comparable] struct {
	// Clock is the queue's clock; nil means the real one.
	Clock clock.Clock
	// Storage holds the waiting items; nil means a FIFO. Any storage but a *queue.FIFO is
	// foreign code: it is never read ahead (see the package documentation).
	Storage queue.Storage[T]
	// Metrics chooses the queue metrics (the retries counter is the caller's to keep). A queue
	// with metrics answers every command before the caller returns, so that the metrics are up
	// to date when Add, Get or Done returns, as they are in client-go.
	Metrics metrics.Config
	// Forward, when set, receives every item that would be added, from the owner goroutine: the
	// queue is then only a delay heap in front of another queue.
	Forward func(T)
}

// Queue is a workqueue run by one owner goroutine. Create it with [New]. All its methods are
// safe for simultaneous use by multiple goroutines, and none blocks after shutdown except
// ShutDownWithDrain, which waits for processing to end as documented.
type Queue[T comparable] struct {
	mailbox  mailbox[T]
	ready    chan handoff[T]
	closing  chan struct{} // closed when shutdown begins
	handover chan struct{} // closed when the owner has given up the state
	exited   chan struct{} // closed when the owner goroutine has returned
	stopping atomic.Bool   // shutdown has begun

	clock     clock.Clock // never nil
	alarmWith clock.Clock // the clock for the owner's alarm; nil for the real one
	waits     bool        // callers wait for every command: the owner runs foreign code
	checkKeys bool        // items may fail to hash: check them before they reach the owner
	readAhead bool        // items go to ready before getters ask (the built-in FIFO)

	replies sync.Pool  // chan result[T], buffer 1
	tomb    sync.Mutex // held by whoever applies commands after the handover
	m       rules[T]

	// taken is the highest reservation any getter has taken. Getters raise it on every Get, so it
	// sits on a cache line of its own, away from the fields every caller reads.
	_     [64]byte
	taken atomic.Uint64
	_     [56]byte
}

// New starts a queue's owner goroutine and returns the queue.
func New[T comparable](c Config[T]) *Queue[T] {
	q := newQueue(c)
	go q.run()
	return q
}

// newQueue returns a queue with client-go's rules whose owner goroutine is not started.
func newQueue[T comparable](c Config[T]) *Queue[T] {
	_, builtin := c.Storage.(*queue.FIFO[T])
	builtin = builtin || c.Storage == nil
	q, b := newShell[T](c.Clock, c.Metrics)
	q.waits = q.waits || !builtin
	q.readAhead = builtin
	q.ready = make(chan handoff[T], readySize)
	q.m = &fifo[T]{
		base:      b,
		state:     queue.New(c.Storage),
		forward:   c.Forward,
		ready:     q.ready,
		taken:     &q.taken,
		readAhead: builtin,
	}
	return q
}

// newShell returns a queue without rules, and the base of its rules.
func newShell[T comparable](c clock.Clock, m metrics.Config) (*Queue[T], base[T]) {
	meters := metrics.New[T](m)
	q := &Queue[T]{
		closing:   make(chan struct{}),
		handover:  make(chan struct{}),
		exited:    make(chan struct{}),
		clock:     clock.OrReal(c),
		alarmWith: c,
		waits:     meters.Enabled(),
		checkKeys: hashMayPanic(reflect.TypeFor[T]()),
	}
	q.mailbox = newMailbox[T](&q.taken)
	q.replies.New = func() any { return make(chan result[T], 1) }
	return q, base[T]{
		clock:    q.clock,
		metrics:  meters,
		mailbox:  &q.mailbox,
		closing:  q.closing,
		stopping: &q.stopping,
		created:  q.clock.Now(),
	}
}

// Add marks item as needing processing. After shutdown it does nothing. It panics, in the
// caller's goroutine, if item cannot be a map key.
func (q *Queue[T]) Add(item T) {
	q.check("Add", item)
	if q.stopping.Load() {
		return
	}
	q.post(command[T]{op: opAdd, item: item})
}

// AddBatch adds items in order, all at once: a Len or Get on another goroutine sees all of them
// or none. It costs one command however many items there are, and copies the slice, which the
// caller may reuse at once. After shutdown it does nothing. It panics, in the caller's
// goroutine and before adding any, if an item cannot be a map key.
func (q *Queue[T]) AddBatch(items ...T) {
	for _, item := range items {
		q.check("AddBatch", item)
	}
	if len(items) == 0 || q.stopping.Load() {
		return
	}
	q.post(command[T]{op: opAddBatch, items: slices.Clone(items)})
}

// AddAfter adds item once delay has passed on the queue's clock; a delay of zero or less adds
// it at once. An item already waiting keeps the earlier of its two instants. After shutdown it
// does nothing; otherwise it counts one retry on retries, when not nil.
func (q *Queue[T]) AddAfter(item T, delay time.Duration, retries metrics.CounterMetric) {
	q.check("AddAfter", item)
	if q.stopping.Load() {
		return
	}
	if retries != nil {
		retries.Inc()
	}
	if delay <= 0 {
		q.post(command[T]{op: opAdd, item: item})
		return
	}
	// The instant is read here, in the caller, so that a fake clock stepped right after the
	// call measures the delay from the call, as in client-go.
	if mutant.Active(mutant.EarlyDelay) {
		delay /= 2
	}
	q.post(command[T]{op: opAddAfter, item: item, at: q.clock.Now().Add(delay)})
}

// AddRateLimited adds item after the wait l decides. l is asked even after shutdown, as in
// client-go, so the failure counts; the item itself is then dropped. Before shutdown it counts
// one retry on retries, when not nil.
func (q *Queue[T]) AddRateLimited(item T, l *Limiter[T], retries metrics.CounterMetric) {
	q.check("AddRateLimited", item)
	if retries != nil && !q.stopping.Load() {
		retries.Inc()
	}
	q.limit(command[T]{op: opAddRateLimited, item: item, at: q.clock.Now(), lim: l})
}

// Forget makes l forget item's failures.
func (q *Queue[T]) Forget(item T, l *Limiter[T]) {
	q.check("Forget", item)
	q.limit(command[T]{op: opForget, item: item, lim: l})
}

// NumRequeues returns the failures l counts for item.
func (q *Queue[T]) NumRequeues(item T, l *Limiter[T]) int {
	q.check("NumRequeues", item)
	return q.call(command[T]{op: opNumRequeues, item: item, lim: l}).n
}

// Get blocks until an item is ready, marks it as being processed and returns it. Once the
// queue is shutting down it returns the items still waiting, then shutdown == true without
// blocking. Every item returned must be passed to Done.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	item, shutdown, _ = q.get(nil)
	return item, shutdown
}

// GetWithContext is Get that gives up when ctx is done, and then returns ctx.Err(). A getter
// that gives up takes nothing: no item is handed to a caller that has gone, so none is lost or
// left in processing. Workers can be stopped this way without shutting the queue down. When ctx
// is already done, it returns at once, without an item.
func (q *Queue[T]) GetWithContext(ctx context.Context) (item T, shutdown bool, err error) {
	if err := ctx.Err(); err != nil {
		return item, false, err
	}
	return q.get(ctx)
}

// get is Get, given up when ctx (which may be nil) is done.
func (q *Queue[T]) get(ctx context.Context) (item T, shutdown bool, err error) {
	if !q.readAhead {
		q.send(command[T]{op: opWant})
	}
	select {
	case h := <-q.ready:
		return q.take(h), false, nil
	default:
	}
	var cancel <-chan struct{}
	if ctx != nil {
		cancel = ctx.Done()
	}
	select {
	case h := <-q.ready:
		return q.take(h), false, nil
	case <-q.closing:
		r := q.call(command[T]{op: opGet})
		return r.item, r.shutdown, nil
	case <-cancel:
		if !q.readAhead {
			q.send(command[T]{op: opUnwant})
		}
		return item, false, ctx.Err()
	}
}

// take records that this getter took h, and returns its item. Raising the watermark is the
// whole of it: every command sent from now on carries the take in its stamp (see mailbox). A
// queue whose owner runs foreign code also has it applied before Get returns, so that the
// metrics are current and a panic reaches this caller.
func (q *Queue[T]) take(h handoff[T]) T {
	if h.fault != nil {
		panic(h.fault)
	}
	raise(&q.taken, h.seq)
	if q.waits {
		q.call(command[T]{op: opTaken})
	}
	return h.item
}

// raise raises the watermark w to at least seq.
func raise(w *atomic.Uint64, seq uint64) {
	for seen := w.Load(); seen < seq && !w.CompareAndSwap(seen, seq); {
		seen = w.Load()
	}
}

// Done ends the processing of item; if item was added again meanwhile, it waits again. Done of
// an item that is not being processed does nothing. It works after shutdown too.
func (q *Queue[T]) Done(item T) {
	q.check("Done", item)
	q.post(command[T]{op: opDone, item: item})
}

// Len returns the number of items waiting to be handed out.
func (q *Queue[T]) Len() int { return q.call(command[T]{op: opLen}).n }

// ShutDown makes the queue ignore new items; getters receive the items still waiting, then
// shutdown == true. It ends any ShutDownWithDrain that is waiting, and returns once the owner
// goroutine has exited. Calling it again does nothing.
func (q *Queue[T]) ShutDown() {
	q.call(command[T]{op: opShutDown})
	<-q.exited
}

// ShutDownWithDrain is ShutDown that first waits until no item is being processed. It waits
// forever if a worker never calls Done, unless ShutDown is called meanwhile.
func (q *Queue[T]) ShutDownWithDrain() {
	q.call(command[T]{op: opShutDown, drain: true})
	<-q.exited
}

// ShutDownWithDrainContext is ShutDownWithDrain that gives up when ctx is done: it then shuts
// the queue down as ShutDown does, ending every drain, and returns the items that were still
// being processed, with ctx.Err(). When the drain completes first, it returns nil, nil. Either
// way it returns once the owner goroutine has exited.
func (q *Queue[T]) ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error) {
	reply := q.replies.Get().(chan result[T])
	q.send(command[T]{op: opShutDown, drain: true, reply: reply})
	select {
	case r := <-reply:
		q.replies.Put(reply)
		<-q.exited
		if r.fault != nil {
			panic(r.fault)
		}
		return nil, nil
	case <-ctx.Done():
	}
	r := q.call(command[T]{op: opShutDown, report: true}) // ends the drain above, too
	<-reply
	q.replies.Put(reply)
	<-q.exited
	if len(r.items) == 0 {
		return nil, nil // the drain completed as ctx ended
	}
	return r.items, ctx.Err()
}

// Snapshot returns the queue's counts at this instant, for debugging; it does not stop the
// queue. It works after shutdown too.
func (q *Queue[T]) Snapshot() Snapshot { return q.call(command[T]{op: opSnapshot}).snapshot }

// ShuttingDown reports whether shutdown has begun.
func (q *Queue[T]) ShuttingDown() bool { return q.stopping.Load() }

// check panics in the caller's goroutine if item cannot be a map key.
func (q *Queue[T]) check(method string, item T) {
	if q.checkKeys {
		mustHash(method, item)
	}
}

// post sends c, waiting for the outcome when the owner runs foreign code.
func (q *Queue[T]) post(c command[T]) {
	if q.waits {
		q.call(c)
	} else {
		q.send(c)
	}
}

// limit sends c, waiting for the outcome when c may run foreign code.
func (q *Queue[T]) limit(c command[T]) {
	if q.waits || !c.lim.safe {
		q.call(c)
	} else {
		q.send(c)
	}
}

// call sends c and waits for the answer, raising any panic the command caused.
func (q *Queue[T]) call(c command[T]) result[T] {
	reply := q.replies.Get().(chan result[T])
	c.reply = reply
	q.send(c)
	r := <-reply
	q.replies.Put(reply)
	if r.fault != nil {
		panic(r.fault)
	}
	return r
}

// send makes sure c is applied: by the owner, or, once the owner has handed the state over,
// by this caller.
func (q *Queue[T]) send(c command[T]) {
	select {
	case <-q.handover:
		q.settle(&c)
		return
	default:
	}
	q.mailbox.put(c)
	// The owner closes handover before its last look at the mailbox. If handover is still open
	// here, that look is yet to come and will find c; if it is closed, c may have arrived too
	// late, and settle applies it.
	select {
	case <-q.handover:
		q.settle(nil)
	default:
	}
}

// settle applies, holding the handover lock, whatever is left in the mailbox and then c.
func (q *Queue[T]) settle(c *command[T]) {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	q.drainMailbox()
	if c != nil {
		c.taken = q.taken.Load() // applied now, so stamped now
		q.m.exec(c)
	}
}

// drainMailbox applies every command in the mailbox.
func (q *Queue[T]) drainMailbox() {
	for batch := q.mailbox.take(); batch != nil; batch = q.mailbox.take() {
		for i := range batch {
			q.m.exec(&batch[i])
		}
		q.mailbox.recycle(batch)
	}
}
