package queue

import "time"

// UnfinishedPeriod is how often a named queue's unfinished-work gauges move, as in client-go.
const UnfinishedPeriod = 500 * time.Millisecond

// Heartbeat is how often client-go's delaying queue wakes with nothing to do.
const Heartbeat = 10 * time.Second

// Schedule says when a queue's owner wakes beside its delays: for the ticks that move a named
// queue's unfinished-work gauges, and for the heartbeat of a delaying queue on an injected
// clock. Like a Machine it reads no clock: every instant is an argument.
//
// On the real clock, a tick while nothing is in processing would set the gauges to the zero
// they read already: only the wake-up would show, so the ticks run only while items are in
// processing, and once more after. An injected clock is a test's, which can see its waiters
// and the gauges' Set calls, so there a FIFO queue's ticks keep client-go's schedule: every
// UnfinishedPeriod from creation until shutdown (see [Schedule.TickAlways]). For the same
// reason a delaying queue on an injected clock wakes every Heartbeat until shutdown, doing
// nothing, as client-go's waiting loop does: a test may wait for its clock to have a waiter.
//
// The zero value schedules nothing.
type Schedule struct {
	from    time.Time // the ticks fall every UnfinishedPeriod from it
	tickAt  time.Time // the next tick; zero while none is due
	always  bool      // the ticks run from creation until shutdown
	beatAt  time.Time // the next heartbeat; zero for none
	stopped bool      // the queue is shutting down: nothing more is scheduled
}

// TickFrom makes the ticks fall every UnfinishedPeriod from the instant from, the queue's
// creation.
func (s *Schedule) TickFrom(from time.Time) { s.from = from }

// TickAlways makes the ticks run from now until Stop, whatever is in processing.
func (s *Schedule) TickAlways(now time.Time) {
	s.always = true
	s.Started(now)
}

// Started schedules the next tick, if none is, as an item starts at now.
func (s *Schedule) Started(now time.Time) {
	if s.tickAt.IsZero() && !s.stopped {
		s.tickAt = s.next(now)
	}
}

// Tick reports whether the gauges move at now, and if so schedules the next tick, while items
// are in processing (inFlight) or always.
func (s *Schedule) Tick(now time.Time, inFlight bool) bool {
	if s.tickAt.IsZero() || now.Before(s.tickAt) {
		return false
	}
	s.tickAt = time.Time{}
	if s.always || inFlight {
		s.tickAt = s.next(now)
	}
	return true
}

// StartHeartbeat starts the heartbeat, a wake-up every Heartbeat from now, unless it runs.
func (s *Schedule) StartHeartbeat(now time.Time) {
	if s.beatAt.IsZero() && !s.stopped {
		s.beatAt = now.Add(Heartbeat)
	}
}

// Beat schedules the next heartbeat once the last has passed at now.
func (s *Schedule) Beat(now time.Time) {
	if !s.beatAt.IsZero() && !now.Before(s.beatAt) {
		s.beatAt = nextAfter(s.beatAt, Heartbeat, now)
	}
}

// Stop ends the ticks and the heartbeat for good, for a queue shutting down.
func (s *Schedule) Stop() { *s = Schedule{stopped: true} }

// Running reports whether a tick or a heartbeat is scheduled.
func (s *Schedule) Running() bool { return !s.tickAt.IsZero() || !s.beatAt.IsZero() }

// NextTick returns the instant of the next tick, and NextBeat that of the next heartbeat; zero
// for none.
func (s *Schedule) NextTick() time.Time { return s.tickAt }
func (s *Schedule) NextBeat() time.Time { return s.beatAt }

// next returns the first tick after now.
func (s *Schedule) next(now time.Time) time.Time { return nextAfter(s.from, UnfinishedPeriod, now) }

// nextAfter returns the first instant from + k·period, k ≥ 1, after now.
func nextAfter(from time.Time, period time.Duration, now time.Time) time.Time {
	return from.Add((max(now.Sub(from), 0)/period + 1) * period)
}
