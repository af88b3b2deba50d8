package actor

import "time"

// unfinishedPeriod is how often the unfinished-work gauges move, as in client-go: while items
// are in processing, and all the time on an injected clock (see timers.always).
const unfinishedPeriod = 500 * time.Millisecond

// heartbeat is how often client-go's delaying queue wakes with nothing to do, and so how often
// one of ours does on an injected clock (see startHeartbeat).
const heartbeat = 10 * time.Second

// timers are the owner's wake-ups beside its delays: the ticks that move a named queue's
// unfinished-work gauges, and the heartbeat of a delaying queue on an injected clock.
//
// On the real clock, a tick while nothing is in processing would set the gauges to the zero
// they read already: only the wake-up would show, so the ticks run only while items are in
// processing, and one more after. An injected clock is a test's, which can see its waiters and
// the gauges' Set calls, so there a FIFO queue's ticks keep client-go's schedule: every
// unfinishedPeriod from creation until shutdown. A priority queue's metrics read the real
// clock, as controller-runtime's do whatever its delays wait on, so on an injected clock its
// ticks wait on the real clock, beside the queue's alarm.
type timers struct {
	from   time.Time // the ticks fall every unfinishedPeriod from it, on the metrics' clock
	tickAt time.Time // the next tick; zero while none is due
	always bool      // the ticks run from creation until shutdown
	apart  bool      // the ticks are on the real clock, apart from the queue's own
	beatAt time.Time // the next heartbeat; zero for none
}

// next returns the first tick after now.
func (t *timers) next(now time.Time) time.Time { return nextAfter(t.from, unfinishedPeriod, now) }

// started schedules the next tick, if none is, once an item starts at now (closed: the queue is
// shutting down, and ticks no more).
func (t *timers) started(now time.Time, closed bool) {
	if t.tickAt.IsZero() && !closed {
		t.tickAt = t.next(now)
	}
}

// running reports whether a tick or a heartbeat is scheduled.
func (t *timers) running() bool { return !t.tickAt.IsZero() || !t.beatAt.IsZero() }

// stop ends the ticks and the heartbeat, for a queue shutting down.
func (t *timers) stop() { t.tickAt, t.beatAt = time.Time{}, time.Time{} }

// apartAt returns the instant, on the real clock, the owner must wake at for a tick when the
// ticks have their own alarm; zero otherwise.
func (t *timers) apartAt() time.Time {
	if t.apart {
		return t.tickAt
	}
	return time.Time{}
}

// startHeartbeat gives a delaying queue on an injected clock client-go's heartbeat: a wake-up
// every 10 s, until shutdown, that does nothing but wait on the clock. A test may wait for its
// clock to have a waiter, which client-go's delaying queue always has. On the real clock the
// heartbeat would only cost wake-ups.
func (q *Queue[T]) startHeartbeat() {
	if q.alarmWith != nil && q.timers.beatAt.IsZero() && !q.core.Closed() {
		q.timers.beatAt = q.clock.Now().Add(heartbeat)
	}
}

// catchUp does the work that time has brought, at the end of a turn: it asks StopWhen; posts
// the release of what is due to the mailbox, where it is applied after every command sent
// before it and before every command sent after, so that a flood of commands cannot hold it
// back (and a FIFO queue stamps it with the takes so far, which it must meet); moves the
// unfinished-work gauges when due; and schedules the next heartbeat once one has passed.
func (q *Queue[T]) catchUp() {
	if q.stopWhen != nil {
		q.watch()
	}
	if _, due := q.core.NextDue(); !due && !q.timers.running() {
		return
	}
	now := q.clock.Now()
	q.now = now
	if q.core.Advance(now) {
		q.mailbox.postOwn(command[T]{op: opDue, at: q.since(now)})
	}
	if q.timers.apart {
		q.tick(q.meter.Now())
	} else {
		q.tick(now)
	}
	if !q.timers.beatAt.IsZero() && !now.Before(q.timers.beatAt) {
		q.timers.beatAt = nextAfter(q.timers.beatAt, heartbeat, now)
	}
}

// watch shuts the queue down if StopWhen reports true. A panic of StopWhen is kept for the
// next caller that waits for an answer.
func (q *Queue[T]) watch() {
	if q.core.Closed() {
		return
	}
	q.guard(func() {
		if q.stopWhen() {
			q.shutDown(&command[T]{op: opShutDown})
			q.keep(q.record(time.Time{}))
		}
	})
}

// tick updates the unfinished-work gauges when due at now (on the metrics' clock), and
// schedules the next tick while items are in processing (or always, see timers).
func (q *Queue[T]) tick(now time.Time) {
	t := &q.timers
	if t.tickAt.IsZero() || now.Before(t.tickAt) {
		return
	}
	t.tickAt = time.Time{}
	if t.always || q.metrics.InFlight() {
		t.tickAt = t.next(now)
	}
	q.guard(func() { q.metrics.UpdateUnfinished(now) })
}

// deadline returns the instant the owner's alarm must wake it at, or zero: the earliest of the
// next heartbeat, the next tick (unless the ticks have an alarm of their own) and the instant
// delayed items fall due.
func (q *Queue[T]) deadline() time.Time {
	at := q.timers.beatAt
	if !q.timers.apart {
		at = soonest(at, q.timers.tickAt)
	}
	if due, ok := q.core.NextDue(); ok {
		at = soonest(at, due)
	}
	return at
}

// nextAfter returns the first instant from + k·period, k ≥ 1, after now.
func nextAfter(from time.Time, period time.Duration, now time.Time) time.Time {
	return from.Add((max(now.Sub(from), 0)/period + 1) * period)
}

// soonest returns the earlier of two instants, zero standing for none.
func soonest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
