package actor

import "time"

// startHeartbeat gives a delaying queue on an injected clock client-go's heartbeat (see
// queue.Schedule); on the real clock it would only cost wake-ups.
func (q *Queue[T]) startHeartbeat() {
	if q.alarmWith != nil {
		q.schedule.StartHeartbeat(q.clock.Now())
	}
}

// catchUp does what time has brought, at the end of a turn: it asks StopWhen; posts the release
// of what is due to the mailbox, where it takes effect in order with the commands (so that a
// flood of them cannot hold it back, and a FIFO queue stamps it with the takes so far); moves
// the unfinished-work gauges when due; and schedules the next heartbeat.
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
	if q.schedule.Tick(now, q.core.Processing() > 0) {
		q.guard(q.updateUnfinished)
	}
	q.schedule.Beat(now)
}

// watch shuts the queue down if StopWhen reports true; its panic is kept for the next caller
// that waits.
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

// updateUnfinished sets the unfinished-work gauges, on the metrics' clock: from the instants
// the core keeps for a FIFO queue, from those the metrics keep for a priority queue.
func (q *Queue[T]) updateUnfinished() {
	at := q.meter.Now()
	if q.fifo == nil {
		q.metrics.UpdateUnfinished(at)
		return
	}
	q.metrics.SetUnfinished(q.fifo.Unfinished(at))
}

// deadline returns the instant the alarm must wake the owner at, or zero: the earliest of the
// next heartbeat, the next tick and the instant delayed items fall due.
func (q *Queue[T]) deadline() time.Time {
	at := soonest(q.schedule.NextBeat(), q.schedule.NextTick())
	if due, ok := q.core.NextDue(); ok {
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
