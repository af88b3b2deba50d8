package actor

import (
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue"
)

// readySize is how many reserved items may wait in ready for a getter. A busy owner that fills
// ready sleeps until a getter empties it and nudges it back (see fifo.refill), so a larger ready
// spares sleeps and wake-ups under load. It costs memory in every queue (a handoff of an int
// item is 32 bytes), and an owner that sleeps less leaves Len to ask it more often: at 128, the
// observers of the comparison's row 9 made nearly a third fewer calls.
const readySize = 64

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
	// Delaying says the queue serves AddAfter, as a delaying or rate-limiting queue (a queue with
	// Forward always does). On an injected clock it then keeps client-go's heartbeat.
	Delaying bool
	// Group, when set, names each item's group: the queue then keeps its items in a
	// queue.Grouped, which serves the groups in turn, with at most MaxPerGroup items of one group
	// in processing (0: no limit). Storage must be nil. The function is called in the callers'
	// goroutines before each add, where its panic is raised, and again in the owner.
	Group       func(T) string
	MaxPerGroup int
	// StopWhen, when set, is asked whenever the owner wakes (for a command, a due item, or, on
	// an injected clock, client-go's 10 s heartbeat) whether the queue should shut itself down,
	// dropping its delayed items; it then does. It is called from the owner goroutine. A delay
	// heap in front of a queue of another package stops with it so.
	StopWhen func() bool
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
	overflow atomic.Bool   // the owner holds items that ready had no room for (see fifo.refill)
	served   atomic.Bool   // a delaying queue serves the delay heap: q itself, or one that joined

	clock     clock.Clock    // never nil
	origin    time.Time      // the instant commands count their instants from
	alarmWith clock.Clock    // the clock for the owner's alarm; nil for the real one
	waits     bool           // callers wait for every command: the owner runs foreign code
	timed     bool           // callers read the clock for the owner's metrics, which do not wait
	checkKeys bool           // items may fail to hash: check them before they reach the owner
	readAhead bool           // items go to ready before getters ask (the built-in FIFO)
	group     func(T) string // a grouped queue's group function, checked in callers (see checkAdd)
	bubbled   bool           // built in a testing/synctest bubble (see Abandon)

	replies sync.Pool     // chan result[T], buffer 1
	tomb    sync.Mutex    // held by whoever applies commands after the handover
	adopted []*Limiter[T] // the limiters q adopted, in whole or in part, until released (under tomb)
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
	q.start()
	return q
}

// newQueue returns a queue with client-go's rules whose owner goroutine is not started.
func newQueue[T comparable](c Config[T]) *Queue[T] {
	_, builtin := c.Storage.(*queue.FIFO[T])
	builtin = builtin || c.Storage == nil
	q, b := newShell[T](c.Clock, c.Metrics)
	q.waits = q.waits || !builtin
	q.readAhead = builtin && c.Group == nil // turns are decided as getters ask, not ahead
	q.group = c.Group
	q.timed = builtin && b.metrics.Async()
	q.ready = make(chan handoff[T], readySize)
	if c.Delaying || c.Forward != nil {
		b.startHeartbeat()
		q.served.Store(true)
	}
	m := &fifo[T]{
		base:      b,
		forward:   c.Forward,
		ready:     q.ready,
		taken:     &q.taken,
		overflow:  &q.overflow,
		readAhead: q.readAhead,
		timed:     q.timed,
	}
	m.state = queue.New(c.Storage)
	if c.Group != nil {
		m.state = queue.New[T](queue.NewGrouped(m.ownGroup(c.Group), c.MaxPerGroup))
	}
	q.m = m
	if c.StopWhen != nil {
		q.m = &watched[T]{rules: q.m, stop: c.StopWhen}
	}
	return q
}

// since returns the instant t as the time since the queue's origin, as commands carry
// instants. Without a monotonic reading, an instant far in the future saturates rather than
// wraps, so it stays in the future.
func (q *Queue[T]) since(t time.Time) time.Duration { return t.Sub(q.origin) }

// newShell returns a queue without rules, and the base of its rules.
//
// The unfinished-work ticks follow the queue's metrics. On the real clock, a tick while nothing
// is in processing would set the gauges to the zero they read already: only the wake-up would
// show, so the ticks run only while items are in processing. An injected clock is a test's,
// which can see its waiters and the gauges' Set calls, so there a FIFO queue's ticks keep
// client-go's schedule: every unfinishedPeriod from creation until shutdown. A priority queue's
// metrics read the real clock, as controller-runtime's do whatever the queue's delays wait on,
// so on an injected clock its ticks wait on the real clock, beside the queue's alarm.
func newShell[T comparable](c clock.Clock, m metrics.Config) (*Queue[T], base[T]) {
	meters := metrics.New[T](m)
	q := &Queue[T]{
		closing:   make(chan struct{}),
		handover:  make(chan struct{}),
		exited:    make(chan struct{}),
		clock:     clock.OrReal(c),
		alarmWith: c,
		waits:     meters.Enabled() && !meters.Async(),
		checkKeys: hashMayPanic(reflect.TypeFor[T]()),
		bubbled:   inBubble(),
	}
	q.origin = q.clock.Now()
	q.mailbox = newMailbox[T](&q.taken, &q.stopping)
	q.replies.New = func() any { return make(chan result[T], 1) }
	b := base[T]{
		clock:    q.clock,
		metrics:  meters,
		mailbox:  &q.mailbox,
		closing:  q.closing,
		stopping: &q.stopping,
		created:  q.origin,
		injected: c != nil,
		meter:    q.clock,
		tickFrom: q.origin,
	}
	switch {
	case b.injected && m.Priority:
		b.meter, b.ticksApart = clock.Real{}, true
		b.tickFrom = b.meter.Now()
	case b.injected && meters.Enabled():
		b.tickAt = b.nextTick(b.created) // the ticks run always (see base.ticksAlways)
	}
	return q, b
}
