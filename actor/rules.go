package actor

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/metrics"
)

// unfinishedPeriod is how often the unfinished-work gauges move, as in client-go: while items
// are in processing, and all the time on an injected clock (see base.injected).
const unfinishedPeriod = 500 * time.Millisecond

// heartbeat is how often client-go's delaying queue wakes with nothing to do, and so how often
// one of ours does on an injected clock (see base.startHeartbeat).
const heartbeat = 10 * time.Second

// rules are a queue's state and the rules that apply commands to it: client-go's (fifo) or
// controller-runtime's priority queue's (prio). The owner goroutine uses them, and after the
// handover one caller at a time, holding the handover lock. They start no goroutines and
// never block: every channel they send on has room by construction.
type rules[T comparable] interface {
	// exec applies c and answers its caller, if one waits. It may panic: rules run foreign
	// code (a storage, a rate limiter, metrics); fail then answers c.
	exec(c *command[T])
	// fail answers c with the panic p that exec raised.
	fail(c *command[T], p any)
	// prefetch reads ahead the memory that applying commands will touch, before they are
	// applied.
	prefetch(commands []command[T])
	// catchUp does the work that time has brought, at the end of a turn. It wakes nobody.
	catchUp()
	// refill hands items to waiting getters, at the end of a turn.
	refill()
	// deadline returns the instant the owner must wake at if no command comes first, or zero.
	deadline() time.Time
	// finished reports whether the owner may leave: shutdown has begun and no drain waits.
	finished() bool
	// beginTurn starts a turn of the owner.
	beginTurn()
	// resting returns the queue's length as the rules stand, for Len to answer while the
	// owner sleeps (see mailbox.length); unknown while a panic is stashed, for Len must then
	// raise it. The owner asks only when callers need not wait for every command.
	resting() resting
	// tickDeadline returns the instant, on the real clock, the owner must wake at for an
	// unfinished-work tick, when the ticks do not follow the queue's clock; zero otherwise.
	tickDeadline() time.Time
}

// base is what both kinds of rules share: answering callers, keeping the panics nobody waited
// for, shutdown and drains, the instant of a turn, and the unfinished-work ticks.
type base[T comparable] struct {
	clock    clock.Clock
	metrics  *metrics.Queue[T]
	mailbox  *mailbox[T]   // where the owner posts the commands time brings
	closing  chan struct{} // closed when shutdown begins
	stopping *atomic.Bool  // shutdown has begun, for readers outside the owner; see mailbox

	shuttingDown bool
	drainers     []chan result[T] // ShutDownWithDrain callers waiting for processing to end
	stash        any              // a panic nobody waited for

	created  time.Time // the queue's origin: the instant its instants count from
	injected bool      // the clock was passed in: timers keep client-go's schedule (see ticksAlways)

	// The metrics read meter, which is clock, but for a priority queue on an injected clock,
	// whose metrics read the real clock, as controller-runtime's always do (see newShell). The
	// unfinished-work ticks are instants on meter, every unfinishedPeriod from tickFrom.
	meter      clock.Clock
	tickFrom   time.Time
	tickAt     time.Time // next unfinished-work update; zero while none is due
	ticksApart bool      // meter is not clock: the ticks have an alarm of their own

	beatAt     time.Time // next heartbeat (see startHeartbeat); zero for none
	instant    time.Time // the current instant, read once per turn; zero until read
	duePending bool      // an opDue is posted and not applied yet
}

// run applies c with apply and answers its caller, if one waits. apply reports parked when the
// answer comes later (a drain that must wait, a parked getter). A panic is left to the caller
// of exec (see Queue.execAll), which answers it with fail.
func (b *base[T]) run(c *command[T], apply func(*command[T]) (result[T], bool)) {
	r, parked := apply(c)
	switch {
	case parked:
	case c.op == opDo && c.reply != nil:
		// A call to a limiter the queue adopted, which may come from another queue: no
		// stashed panic rides on its answer.
		c.reply <- r
	default:
		b.answer(c.reply, r)
	}
}

// fail answers c with the panic p that applying it raised; with nobody waiting, p is stashed
// for the next caller that waits.
func (b *base[T]) fail(c *command[T], p any) { b.answer(c.reply, result[T]{fault: p}) }

// answer sends r to reply, or stashes its fault when reply is nil. A stashed panic rides on the
// first answer that has none of its own.
func (b *base[T]) answer(reply chan result[T], r result[T]) {
	if reply == nil {
		b.keep(r.fault)
		return
	}
	if r.fault == nil {
		r.fault, b.stash = b.stash, nil
	}
	reply <- r
}

// keep stashes the panic p, if there is one and none is stashed already. Len must then ask
// the owner, so as to raise it: the length left for Len is voided.
func (b *base[T]) keep(p any) {
	if p != nil && b.stash == nil {
		b.stash = p
		b.mailbox.voidRest()
	}
}

// owed returns the panic owed to the caller about to be answered: fault if there is one, else
// the stashed one, which it takes. The rules ask before an answer that hands out an item, and
// give the item back if one is owed: a Get that panics hands out nothing.
func (b *base[T]) owed(fault any) any {
	if fault == nil {
		fault, b.stash = b.stash, nil
	}
	return fault
}

// guard runs f, stashing its panic: for work that no caller waits on.
func (b *base[T]) guard(f func()) {
	defer func() {
		if p := recover(); p != nil {
			b.keep(p)
		}
	}()
	f()
}

// beginShutdown marks the shutdown, and reports whether it had not begun before.
func (b *base[T]) beginShutdown() bool {
	if b.shuttingDown {
		return false
	}
	b.shuttingDown = true
	b.stopping.Store(true)
	close(b.closing)
	b.tickAt, b.beatAt = time.Time{}, time.Time{}
	return true
}

// drain ends every drain (a plain ShutDown), or parks reply until no item is being processed
// (ShutDownWithDrain), and reports whether it parked. busy says whether items are being
// processed.
func (b *base[T]) drain(drain bool, reply chan result[T], busy bool) bool {
	if !drain {
		b.releaseDrainers()
		return false
	}
	if !busy {
		return false
	}
	b.drainers = append(b.drainers, reply)
	return true
}

func (b *base[T]) releaseDrainers() {
	for _, reply := range b.drainers {
		b.answer(reply, result[T]{})
	}
	b.drainers = nil
}

func (b *base[T]) finished() bool { return b.shuttingDown && len(b.drainers) == 0 }

func (b *base[T]) beginTurn() { b.instant = time.Time{} }

// instantOf returns the instant at, given as the time since the queue's origin.
func (b *base[T]) instantOf(at time.Duration) time.Time { return b.created.Add(at) }

// later returns the instant a delay d >= 0 after at, both counted from the queue's origin.
// Like q.since, it saturates rather than wraps: a delay too long to count is as long as can be.
func later(at, d time.Duration) time.Duration {
	if sum := at + d; sum >= at {
		return sum
	}
	return math.MaxInt64
}

// now returns the current instant, read from the clock at most once per turn.
func (b *base[T]) now() time.Time {
	if b.instant.IsZero() {
		b.instant = b.clock.Now()
	}
	return b.instant
}

// postDue posts, once, the command that releases what is due at now. Like any command it is
// applied after the commands sent before it and before those sent after, and a FIFO queue
// stamps it with the takes so far: applied on the spot, a due item could meet a take that has
// happened but not yet reached the owner.
func (b *base[T]) postDue(now time.Time) {
	if !b.duePending {
		b.duePending = true
		b.mailbox.postOwn(command[T]{op: opDue, at: now.Sub(b.created)})
	}
}

// catchUpWith does the work that time brings, given the instant the earliest delayed item falls
// due (ok false when none waits): it posts the release of what is due (see postDue), moves the
// unfinished-work gauges when due and schedules the next heartbeat once one has passed.
func (b *base[T]) catchUpWith(due time.Time, ok bool) {
	if !ok && b.tickAt.IsZero() && b.beatAt.IsZero() {
		return
	}
	now := b.clock.Now()
	b.instant = now
	if ok && !due.After(now) {
		b.postDue(now)
	}
	if b.ticksApart {
		b.tick(b.meter.Now())
	} else {
		b.tick(now)
	}
	if !b.beatAt.IsZero() && !now.Before(b.beatAt) {
		b.beatAt = nextAfter(b.beatAt, heartbeat, now)
	}
}

// startHeartbeat gives a delaying queue on an injected clock client-go's heartbeat: a wake-up
// every 10 s, until shutdown, that does nothing but wait on the clock. A test may wait for its
// clock to have a waiter, which client-go's delaying queue always has. On the real clock the
// heartbeat would only cost wake-ups.
func (b *base[T]) startHeartbeat() {
	if b.injected && b.beatAt.IsZero() && !b.shuttingDown {
		b.beatAt = b.clock.Now().Add(heartbeat)
	}
}

// started records that item, of priority, started its processing at now (on meter), in the
// metrics and for the unfinished-work ticks, which run while an item is in processing. It
// returns the panic of the metrics, if any, rather than raising it: the item has started all
// the same.
func (b *base[T]) started(item T, priority int, now time.Time) (fault any) {
	if b.tickAt.IsZero() && !b.shuttingDown {
		b.tickAt = b.nextTick(now)
	}
	defer func() { fault = recover() }()
	b.metrics.Started(item, priority, now)
	return nil
}

// returned records in the metrics that item, of priority, went back to the queue at now, given
// back by a getter that panicked. A panic of the metrics is stashed: no caller waits on this.
func (b *base[T]) returned(item T, priority int, now time.Time) {
	defer func() { b.keep(recover()) }()
	b.metrics.Returned(item, priority, now)
}

// tick updates the unfinished-work gauges when due at now (on meter), and schedules the next
// tick while items are in processing: one more tick after the last Done sets them to zero.
// When the ticks run always (see newShell), it schedules the next one all the same.
func (b *base[T]) tick(now time.Time) {
	if b.tickAt.IsZero() || now.Before(b.tickAt) {
		return
	}
	b.tickAt = time.Time{}
	if b.ticksAlways() || b.metrics.InFlight() {
		b.tickAt = b.nextTick(now)
	}
	b.guard(func() { b.metrics.UpdateUnfinished(now) })
}

// nextTick returns the first unfinished-work tick after now, on meter.
func (b *base[T]) nextTick(now time.Time) time.Time {
	return nextAfter(b.tickFrom, unfinishedPeriod, now)
}

// ticksAlways reports whether the ticks run from creation until shutdown, as client-go's do on
// an injected clock, rather than only while items are in processing (see newShell).
func (b *base[T]) ticksAlways() bool { return b.injected && !b.ticksApart }

func (b *base[T]) tickDeadline() time.Time {
	if b.ticksApart {
		return b.tickAt
	}
	return time.Time{}
}

// nextAfter returns the first instant from + k·period, k ≥ 1, after now.
func nextAfter(from time.Time, period time.Duration, now time.Time) time.Time {
	return from.Add((max(now.Sub(from), 0)/period + 1) * period)
}

// earliest returns the earliest of a due instant (when ok and no due command is pending), the
// next tick (unless the ticks have an alarm of their own) and the next heartbeat; zero for
// none.
func (b *base[T]) earliest(due time.Time, ok bool) time.Time {
	at := b.beatAt
	if !b.ticksApart {
		at = soonest(at, b.tickAt)
	}
	if ok && !b.duePending {
		at = soonest(at, due)
	}
	return at
}

// soonest returns the earlier of two instants, zero standing for none.
func soonest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
