package actor

import (
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/delay"
	"github.com/actorqueue/workqueue/internal/keys"
	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue"
	"github.com/actorqueue/workqueue/queue/priority"
)

// readySize is how many reserved items may wait in ready for a getter (see Queue.fill).
const readySize = 64

// Config describes a queue. The zero value is a FIFO queue on the real clock without metrics.
type Config[T comparable] struct {
	// Clock is the queue's clock; nil means the real one.
	Clock clock.Clock
	// Storage holds the waiting items; nil means a FIFO. With any other than a *queue.FIFO,
	// callers wait for each command, and nothing is reserved before a getter asks.
	Storage queue.Storage[T]
	// Metrics records the queue's metrics; nil records none. Unless its provider lets them trail
	// (metrics.AsyncProvider), callers wait for each command, as client-go's metrics are current
	// when a call returns.
	Metrics *metrics.Queue[T]
	// Forward, when set, receives every item that falls due, in the owner goroutine: the queue
	// is then a delay heap in front of another queue.
	Forward func(T)
	// Delaying says the queue serves AddAfter (see startHeartbeat).
	Delaying bool
	// Group, when set, names each item's group (see queue.Grouped), with at most MaxPerGroup
	// items of one group in processing (0: no limit); Storage must be nil. It is called in the
	// caller before each add, and again in the owner.
	Group       func(T) string
	MaxPerGroup int
	// StopWhen, when set, is asked in the owner whenever it wakes: true shuts the queue down.
	StopWhen func() bool
	// Debounce holds the items of Add and AddBatch (on a priority queue, of its plain adds)
	// until their adds stop (see package delay); its zero value holds none.
	Debounce delay.Debounce
}

// Queue is a workqueue run by one owner goroutine. Create it with [New] or [NewPriority]. Its
// methods are safe for simultaneous use, and none blocks after shutdown but ShutDownWithDrain.
type Queue[T comparable] struct {
	mailbox  mailbox[T]
	ready    chan handoff[T] // reserved items on their way to getters; nil: getters wait (see wait)
	closing  chan struct{}   // closed when shutdown begins
	handover chan struct{}   // closed when the owner has given up the state
	exited   chan struct{}   // closed when the owner goroutine has returned
	stopping atomic.Bool     // shutdown has begun
	overflow atomic.Bool     // reading ahead: items wait that ready had no room for (see fill)
	served   atomic.Bool     // a delaying queue serves the delay heap: q itself, or one that joined

	clock     clock.Clock    // never nil
	alarmWith clock.Clock    // the clock of the owner's alarm; nil for the real one
	origin    time.Time      // commands carry their instants as the time since origin
	waits     bool           // callers wait for every command: the owner runs code of others
	timed     bool           // callers read the clock for the owner's metrics, which do not wait
	checkKeys bool           // items may fail to hash: check them before they reach the owner
	group     func(T) string // a grouped queue's group function, checked in callers (see checkAdd)
	bubbled   bool           // built in a testing/synctest bubble (see Abandon)
	custom    bool           // a custom storage: Len always asks the owner (see observe)
	debounces bool           // adds wait out a debounce window: they need their instants

	// The view the owner publishes for Len and Superseded (see view.go), once asked for, on
	// cache lines of its own: a caller polling Len reads them without slowing the commands.
	_        [64]byte
	view     view[T]
	watching atomic.Bool // a caller asked for Len or Superseded
	tracking atomic.Bool // a caller asked for Superseded
	_        [64]byte

	replies sync.Pool            // chan result[T], buffer 1
	tomb    sync.Mutex           // held by whoever applies commands after the handover
	adopted []*limiter.Handle[T] // the limiters q adopted, until released (under tomb)

	// What the owner goroutine touches, and after the handover the caller holding tomb.
	core      core[T]
	fifo      *queue.Machine[T]    // the core of a FIFO queue; nil for a priority queue
	prio      *priority.Machine[T] // the core of a priority queue; nil for a FIFO queue
	metrics   *metrics.Queue[T]
	meter     clock.Clock       // the metrics' clock: clock, or the real one (see NewPriority)
	forward   func(T)           // see Config.Forward
	stopWhen  func() bool       // see Config.StopWhen
	getters   []chan result[T]  // getters waiting in the owner for an item, oldest first
	drainers  []chan result[T]  // ShutDownWithDrain callers waiting for processing to end
	stash     any               // a panic nobody waited for, for the next caller that waits
	duePosted bool              // the release of due items is in the mailbox (see catchUp)
	counts    limiter.Counts[T] // rate-limited requeues since the last Forget
	now       time.Time         // the turn's instant on clock, read once; zero until read
	schedule  queue.Schedule    // the ticks and the heartbeat
	apart     bool              // the metrics read the real clock, apart from the queue's
	ahead     []T               // room for the items prefetch reads ahead for
	applied   uint64            // the commands applied so far, counted as the mailbox counts puts
	tracked   bool              // the core keeps its superseded items (see publish)

	// taken is the highest reservation any getter has taken: raised on every Get, so on a cache
	// line of its own.
	_     [64]byte
	taken atomic.Uint64
	_     [56]byte
}

// New starts a FIFO queue's owner goroutine and returns the queue.
func New[T comparable](c Config[T]) *Queue[T] {
	q := newQueue(c)
	q.start()
	return q
}

// newQueue returns a FIFO queue whose owner goroutine is not started.
func newQueue[T comparable](c Config[T]) *Queue[T] {
	_, builtin := c.Storage.(*queue.FIFO[T])
	builtin = builtin || c.Storage == nil
	q := newShell(c)
	q.waits = q.waits || !builtin
	q.custom = !builtin
	q.timed = builtin && c.Metrics.Async()
	if !q.waits && c.Group == nil { // a grouped queue decides turns as getters ask
		q.ready = make(chan handoff[T], readySize) // read ahead
	}
	storage := c.Storage
	if c.Group != nil {
		storage = queue.NewGrouped(q.ownGroup(c.Group), c.MaxPerGroup)
	}
	q.fifo = queue.NewMachine(queue.MachineConfig[T]{
		Storage:  storage,
		Origin:   q.origin,
		Forward:  c.Forward != nil,
		Metrics:  c.Metrics.Enabled(),
		Debounce: c.Debounce,
	})
	q.core, q.forward, q.stopWhen = q.fifo, c.Forward, c.StopWhen
	if c.Clock != nil && c.Metrics.Enabled() { // client-go's ticks, on a test's clock
		q.schedule.TickAlways(q.origin)
	}
	if c.Delaying || c.Forward != nil {
		q.startHeartbeat()
		q.served.Store(true)
	}
	return q
}

// NewPriority starts the owner goroutine of a queue with controller-runtime's rules (see
// package queue/priority) and returns the queue. Of c it uses Clock, Metrics (made with
// metrics.Config.Priority), Group and MaxPerGroup. Its metrics read the real clock whatever
// Clock is, as controller-runtime's do; their unfinished-work gauges move every 500 ms of
// Clock.
func NewPriority[T comparable](c Config[T]) *PriorityQueue[T] {
	q := newShell(c)
	state := priority.New[T]()
	if c.Group != nil {
		state = priority.NewGrouped(q.ownGroup(c.Group), c.MaxPerGroup)
	}
	state.Debounce(c.Debounce)
	q.prio = priority.NewMachine(state, c.Metrics.Enabled())
	q.core = q.prio
	if c.Clock != nil {
		q.meter, q.apart = clock.Real{}, true
	}
	q.start()
	return &PriorityQueue[T]{q}
}

// Join lets a delaying queue with clock c share q's owner and delay heap, and reports whether
// it may: q must time its delays on c, and no delaying queue may serve its heap yet, neither q
// itself (Config.Delaying or Config.Forward) nor one that joined before, as each delaying queue
// of client-go has a heap of its own. Once joined, q records its delayed items, if its metrics
// provider offers the gauge. Of several simultaneous callers, at most one is let in.
func (q *Queue[T]) Join(c clock.Clock) bool {
	if !clock.Same(c, q.alarmWith) || !q.served.CompareAndSwap(false, true) {
		return false
	}
	q.call(command[T]{op: opTrackDelayed})
	return true
}

// newShell returns a queue of c without its core.
func newShell[T comparable](c Config[T]) *Queue[T] {
	q := &Queue[T]{
		closing:   make(chan struct{}),
		handover:  make(chan struct{}),
		exited:    make(chan struct{}),
		clock:     clock.OrReal(c.Clock),
		alarmWith: c.Clock,
		waits:     c.Metrics.Enabled() && !c.Metrics.Async(),
		checkKeys: keys.MayPanic(reflect.TypeFor[T]()),
		group:     c.Group,
		bubbled:   inBubble(),
		metrics:   c.Metrics,
		debounces: c.Debounce.On(),
	}
	q.origin = q.clock.Now()
	q.meter = q.clock
	q.schedule.TickFrom(q.origin)
	q.mailbox.wake = make(chan struct{}, 1)
	q.mailbox.taken, q.mailbox.stopping = &q.taken, &q.stopping
	q.replies.New = func() any { return make(chan result[T], 1) }
	return q
}

// since returns the instant t as the time since the queue's origin, as commands carry it,
// saturating.
func (q *Queue[T]) since(t time.Time) time.Duration { return t.Sub(q.origin) }

// instantOf returns the instant at, given as the time since the queue's origin.
func (q *Queue[T]) instantOf(at time.Duration) time.Time { return q.origin.Add(at) }

// instant returns the current instant on the queue's clock, read at most once per turn.
func (q *Queue[T]) instant() time.Time {
	if q.now.IsZero() {
		q.now = q.clock.Now()
	}
	return q.now
}
