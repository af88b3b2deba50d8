package actor

import (
	"slices"
	"time"

	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue"
	"github.com/actorqueue/workqueue/queue/priority"
)

// core is a queue's state machine: *queue.Machine (client-go's rules) or *priority.Machine
// (controller-runtime's). The owner calls it with the instants it reads, and carries out what
// it returns: metric events, items due, items to hand out.
type core[T comparable] interface {
	Add(item T, at time.Time)
	AddAfter(item T, at time.Time)
	Advance(now time.Time) bool
	NextDue() (time.Time, bool)
	Due(now time.Time)
	HandOut(now time.Time) (item T, priority int, ok bool)
	GiveBack(item T, priority int, at time.Time)
	Done(item T) bool
	ShutDown() bool
	Closed() bool
	Len() int
	Processing() int
	InProcessing() []T
	Snapshot(now time.Time) queue.Snapshot
	Events() []metrics.Event[T]
}

// exec applies c and answers its caller, if one waits. It may panic, from the code of others
// that a command runs (a storage, a forward function, a call to the limiter): execFrom then
// answers c with the panic.
func (q *Queue[T]) exec(c *command[T]) {
	if q.readAhead {
		q.fifo.Take(c.taken) // the takes that happened before c was sent
	}
	at := q.stamp(c)
	r, parked := q.apply(c, at)
	fault := q.record(at)
	switch {
	case parked: // answered later; a panic of its metrics waits for the next caller
		q.keep(fault)
	case c.op == opDo && c.reply != nil:
		// A call to a limiter the queue adopted, which may come from another queue: no panic
		// kept for the queue's own callers rides on its answer.
		c.reply <- r
	default:
		if r.fault == nil {
			r.fault = fault
		}
		q.answer(c.reply, r)
	}
}

// apply carries out c, which happened at the instant at (see stamp). It reports parked when
// the answer comes later: a getter that waits, a drain, or a getter that gave up.
func (q *Queue[T]) apply(c *command[T], at time.Time) (r result[T], parked bool) {
	switch c.op {
	case opAdd:
		q.core.Add(c.item, at)
	case opAddBatch:
		c.more.items = q.addBatch(c, at)
	case opAddAfter:
		q.core.AddAfter(c.item, q.instantOf(c.at))
	case opAddRateLimited:
		if r.n = q.counts.Count(c.item, c.lim.Retries().Max); r.n > 0 {
			c.lim.ForgetGivenUp(c.item)
			break // given up on: the caller hears of it
		}
		// Asked even after shutdown, as client-go does: the failure still counts.
		var d time.Duration
		if c.more != nil {
			d = c.more.delays[0] // asked by the caller
		} else {
			d = c.lim.WhenAt(c.item, q.instantOf(c.at))
		}
		if d <= 0 {
			q.core.Add(c.item, at)
		} else {
			q.core.AddAfter(c.item, q.instantOf(later(c.at, d)))
		}
	case opDue:
		q.core.Due(q.instantOf(c.at))
		if q.forward != nil {
			q.forwardDue()
		}
	case opForget: // lim nil: the caller made the limiter forget, the count remains
		if c.lim != nil {
			c.lim.Forget(c.item)
		}
		q.counts.Drop(c.item)
	case opNumRequeues:
		r.n = c.lim.NumRequeues(c.item)
	case opDo:
		c.more.do()
	case opGet:
		if !q.core.Closed() {
			q.getters = append(q.getters, c.reply)
			return r, true
		}
		r = q.getNow(at)
	case opUnwant:
		if i := slices.Index(q.getters, c.reply); i >= 0 {
			q.getters = slices.Delete(q.getters, i, i+1)
			q.answer(c.reply, result[T]{cancelled: true})
		}
		return r, true
	case opTaken:
		q.fifo.Took(c.item, at)
	case opDone:
		if q.core.Done(c.item) && len(q.drainers) > 0 && q.idle() {
			q.releaseDrainers()
		}
	case opLen:
		r.n = q.core.Len()
	case opSnapshot:
		c.more.snapshot = q.core.Snapshot(q.instant())
	case opTrackDelayed:
		q.metrics.TrackDelayed()
		q.metrics.SetDelayed(q.fifo.Delayed())
		q.startHeartbeat()
	case opShutDown:
		return q.shutDown(c)
	}
	return r, false
}

// addBatch adds the items of c in order: plainly to a FIFO queue, with their options to a
// priority queue, and returns the items given up on (see Retries.Max), which a rate-limited
// add counts first, even after shutdown. controller-runtime drops an add once shutdown has
// begun, without asking its limiter, and adds every item it has asked the limiter about: so
// does the owner. An add whose caller asked its limiter (d.delays) is applied even if
// shutdown began since.
func (q *Queue[T]) addBatch(c *command[T], at time.Time) (gaveUp []T) {
	d := c.more
	if q.prio == nil {
		for _, item := range d.items {
			q.core.Add(item, at)
		}
		return nil
	}
	var skip []int // the indexes of the items given up on
	if d.rateLimited || d.delays != nil {
		for i, item := range d.items {
			if q.counts.Count(item, c.lim.Retries().Max) > 0 {
				gaveUp, skip = append(gaveUp, item), append(skip, i)
			}
		}
	}
	if len(gaveUp) > 0 {
		defer c.lim.ForgetGivenUp(gaveUp...) // once the others are added
	}
	if q.prio.Closed() && d.delays == nil {
		return gaveUp
	}
	now := q.instantOf(c.at)
	for i, item := range d.items {
		if len(skip) > 0 && skip[0] == i {
			skip = skip[1:]
			continue
		}
		after := d.after
		switch {
		case d.delays != nil:
			after = d.delays[i]
		case d.rateLimited:
			after = priority.Delay(after, c.lim.WhenAt(item, now))
		}
		var readyAt time.Time
		if after > 0 {
			readyAt = now.Add(after)
		}
		q.prio.AddWithOpts(item, d.priority, readyAt)
	}
	return gaveUp
}

// forwardDue passes the items that fell due to the queue in front of which q is a delay heap.
// Each is passed on whatever the others do: a panic of one is kept for the next caller that
// waits (the item is lost: the queue refused it).
func (q *Queue[T]) forwardDue() {
	items := q.fifo.Forwarded()
	for _, item := range items {
		q.guard(func() { q.forward(item) })
	}
	clear(items)
}

// stamp returns the instant c happened at, for the metrics: the instant its caller read, when
// callers read the clock for them (see Queue.timed); now, for other queues with metrics; zero
// without metrics, which need no instant.
func (q *Queue[T]) stamp(c *command[T]) time.Time {
	switch {
	case !q.metrics.Enabled():
		return time.Time{}
	case q.timed && (c.op == opAdd || c.op == opAddBatch || c.op == opDone || c.op == opTaken):
		return q.instantOf(c.at)
	}
	return q.clock.Now()
}

// record records the core's metric events at the instant at (zero, or a priority queue whose
// metrics read the real clock apart from its own: now, on the metrics' clock), every one of
// them, and returns the first panic of a metric, if any.
func (q *Queue[T]) record(at time.Time) (fault any) {
	events := q.core.Events()
	if len(events) == 0 {
		return nil
	}
	if at.IsZero() || q.apart {
		at = q.meter.Now()
	}
	for i := 0; i < len(events); {
		i, fault = q.recordFrom(events, i, at, fault)
	}
	clear(events) // the core's buffer holds no item past its processing
	return fault
}

// recordFrom records events from the i-th on and returns len(events), with fault or, if it was
// nil, the panic of a metric; one that panics is skipped, and the index after it returned.
func (q *Queue[T]) recordFrom(events []metrics.Event[T], i int, at time.Time, fault any) (next int, first any) {
	first = fault
	defer func() {
		if p := recover(); p != nil {
			if first == nil {
				first = p
			}
			next++
		}
	}()
	for next = i; next < len(events); next++ {
		if events[next].Kind == metrics.KindStarted {
			q.schedule.Started(at)
		}
		q.metrics.Record(events[next], at)
	}
	return next, first
}

// fail answers c with the panic p that applying it raised, once the metric events of what it
// did before are recorded; with nobody waiting, p is kept for the next caller that waits.
func (q *Queue[T]) fail(c *command[T], p any) {
	q.keep(q.record(time.Time{}))
	q.answer(c.reply, result[T]{fault: p})
}

// answer sends r to reply, or keeps its fault when reply is nil. A kept panic rides on the
// first answer that has none of its own.
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
	}
}

// guard runs f, keeping its panic: for work that no caller waits on.
func (q *Queue[T]) guard(f func()) {
	defer func() { q.keep(recover()) }()
	f()
}

// later returns the instant a delay d >= 0 after at, both counted from the queue's origin.
// Like q.since, it saturates rather than wraps: a delay too long to count is as long as can be.
func later(at, d time.Duration) time.Duration {
	if sum := at + d; sum >= at {
		return sum
	}
	return 1<<63 - 1
}
