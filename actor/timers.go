package actor

import (
	"time"

	"github.com/actorqueue/workqueue/clock"
)

// startHeartbeat gives a delaying queue on an injected clock client-go's heartbeat (see
// queue.Schedule); on the real clock it would only cost wake-ups.
func (q *Queue[T]) startHeartbeat() {
	if q.alarmWith != nil {
		q.schedule.StartHeartbeat(q.clock.Now())
	}
}

// catchUp does what time has brought, at the end of a turn: it asks StopWhen; posts the release
// of what is due, to take effect in order with the commands, stamped with the takes so far;
// moves the unfinished-work gauges when due; and schedules the next heartbeat.
func (q *Queue[T]) catchUp() {
	if q.stopWhen != nil {
		q.watch()
	}
	due, delays := q.nextDue()
	if !delays && !q.schedule.Running() {
		return
	}
	now := q.clock.Now()
	q.now = now
	if delays && !due.After(now) {
		q.duePosted = true
		q.mailbox.put(command[T]{op: opDue, at: q.since(now)}, false)
	}
	if q.schedule.Tick(now, q.core.Processing() > 0) {
		q.guard(q.updateUnfinished)
	}
	q.schedule.Beat(now)
}

// watch shuts the queue down if StopWhen reports true, keeping its panic.
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

// updateUnfinished sets the unfinished-work gauges, on the metrics' clock, from the instants
// the core keeps for a FIFO queue and the metrics keep for a priority queue.
func (q *Queue[T]) updateUnfinished() {
	at := q.meter.Now()
	if q.fifo == nil {
		q.metrics.UpdateUnfinished(at)
		return
	}
	q.metrics.SetUnfinished(q.fifo.Unfinished(at))
}

// deadline returns the instant the alarm must wake the owner at, or zero for none.
func (q *Queue[T]) deadline() time.Time {
	at := soonest(q.schedule.NextBeat(), q.schedule.NextTick())
	if due, ok := q.nextDue(); ok {
		at = soonest(at, due)
	}
	return at
}

// nextDue returns when delayed items fall due next, unless their release is posted already.
func (q *Queue[T]) nextDue() (time.Time, bool) {
	if q.duePosted {
		return time.Time{}, false
	}
	return q.core.NextDue()
}

// soonest returns the earlier of two instants, zero standing for none.
func soonest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// alarm is the owner's one timer, armed for an instant; a nil channel while disarmed switches
// its select case off. On the real clock it is one time.Timer, re-armed with Reset; on an
// injected clock, each arming asks the clock's After for a new channel.
type alarm struct {
	clock clock.Clock // nil: the real clock
	timer *time.Timer
	c     <-chan time.Time
	at    time.Time // the instant armed for; zero when disarmed
}

// set arms the alarm for the instant at, or disarms it when at is zero.
func (a *alarm) set(at time.Time) {
	if at.Equal(a.at) {
		return
	}
	switch {
	case at.IsZero():
		if a.timer != nil {
			a.timer.Stop()
		}
		a.c = nil
	case a.clock != nil:
		a.c = a.clock.After(at.Sub(a.clock.Now()))
		// A fake clock stepped between Now and After registers the wait too late: look again.
		if !a.clock.Now().Before(at) {
			now := make(chan time.Time, 1)
			now <- at
			a.c = now
		}
	case a.timer == nil:
		a.timer = time.NewTimer(time.Until(at))
		a.c = a.timer.C
	default:
		a.timer.Reset(time.Until(at))
		a.c = a.timer.C
	}
	a.at = at // once armed: a clock whose After ends the goroutine leaves the alarm to arm again
}

// fired records that the alarm's channel delivered: it is disarmed.
func (a *alarm) fired() {
	a.at, a.c = time.Time{}, nil
}
