package actor

import "time"

// startHeartbeat gives a delaying queue on an injected clock client-go's heartbeat (see
// queue.Schedule); on the real clock it would only cost wake-ups.
func (q *Queue[T]) startHeartbeat() {
	if q.alarmWith != nil {
		q.schedule.StartHeartbeat(q.clock.Now())
	}
}

// catchUp does the work that time has brought, at the end of a turn: it asks StopWhen; posts
// the release of what is due to the mailbox, where it is applied after every command sent
// before it and before every command sent after, so that a flood of commands cannot hold it
// back (and a FIFO queue stamps it with the takes so far, which it must meet); moves the
// unfinished-work gauges when due; and schedules the next heartbeat.
func (q *Queue[T]) catchUp() {
	if q.stopWhen != nil {
		q.watch()
	}
	if _, due := q.core.NextDue(); !due && !q.schedule.Running() {
		return
	}
	now := q.clock.Now()
	q.now = now
	if q.core.Advance(now) {
		q.mailbox.put(command[T]{op: opDue, at: q.since(now)}, false)
	}
	at := now
	if q.apart {
		at = q.meter.Now()
	}
	if q.schedule.Tick(at, q.core.Processing() > 0) {
		q.guard(func() { q.updateUnfinished(at) })
	}
	q.schedule.Beat(now)
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

// updateUnfinished sets the unfinished-work gauges at at: from the instants the core keeps for
// a FIFO queue, from those the metrics keep for a priority queue.
func (q *Queue[T]) updateUnfinished(at time.Time) {
	if q.fifo == nil {
		q.metrics.UpdateUnfinished(at)
		return
	}
	q.metrics.SetUnfinished(q.fifo.Unfinished(at))
}

// deadline returns the instant the owner's alarm must wake it at, or zero: the earliest of the
// next heartbeat, the next tick (unless the ticks are on the real clock apart, see
// NewPriority) and the instant delayed items fall due.
func (q *Queue[T]) deadline() time.Time {
	at := q.schedule.NextBeat()
	if !q.apart {
		at = soonest(at, q.schedule.NextTick())
	}
	if due, ok := q.core.NextDue(); ok {
		at = soonest(at, due)
	}
	return at
}

// apartAt returns the instant, on the real clock, the owner must wake at for a tick when the
// ticks are apart from the queue's clock; zero otherwise.
func (q *Queue[T]) apartAt() time.Time {
	if q.apart {
		return q.schedule.NextTick()
	}
	return time.Time{}
}

// soonest returns the earlier of two instants, zero standing for none.
func soonest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
