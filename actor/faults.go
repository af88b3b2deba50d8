package actor

import (
	"time"

	"github.com/actorqueue/workqueue/metrics"
)

// record records the core's metric events at the instant at (on the metrics' clock when at is
// zero or that clock is apart), and returns the first panic of a metric, if any.
func (q *Queue[T]) record(at time.Time) (fault any) {
	events := q.core.Events()
	if len(events) == 0 {
		return nil
	}
	if at.IsZero() || q.apart {
		at = q.meter.Now()
	}
	ticks := at // on the queue's clock, as the schedule is
	if q.apart {
		ticks = q.instant()
	}
	each(len(events), func(i int) {
		if events[i].Kind == metrics.KindStarted {
			q.schedule.Started(ticks)
		}
		q.metrics.Record(events[i], at)
	}, func(_ int, p any) {
		if fault == nil {
			fault = p
		}
	})
	clear(events) // the core's buffer holds no item past its processing
	return fault
}

// each calls f for 0 to n-1 in order, and caught with the index and panic of each call that
// panics, going on with the next: one deferred recover serves a run of calls.
func each(n int, f func(int), caught func(int, any)) {
	for i := 0; i < n; {
		i = eachFrom(i, n, f, caught)
	}
}

func eachFrom(i, n int, f func(int), caught func(int, any)) (next int) {
	defer func() {
		if p := recover(); p != nil {
			caught(next, p)
			next++
		}
	}()
	for next = i; next < n; next++ {
		f(next)
	}
	return next
}

// fail answers c with the panic p that applying it raised, once the metric events of what it
// did before are recorded.
func (q *Queue[T]) fail(c *command[T], p any) {
	q.keep(q.record(time.Time{}))
	q.answer(c.reply, result[T]{fault: p})
}

// answer sends r to reply, or keeps its fault when reply is nil. A kept panic rides on the
// next answer that has none.
func (q *Queue[T]) answer(reply chan result[T], r result[T]) {
	if reply == nil {
		q.keep(r.fault)
		return
	}
	if r.fault == nil {
		r.fault, q.stash = q.stash, nil
	}
	reply <- r
}

// keep stashes the panic p, if there is one and none is stashed already.
func (q *Queue[T]) keep(p any) {
	if p != nil && q.stash == nil {
		q.stash = p
		q.void()
	}
}

// guard runs f, keeping its panic: for work that no caller waits on.
func (q *Queue[T]) guard(f func()) {
	defer func() { q.keep(recover()) }()
	f()
}
