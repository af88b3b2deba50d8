package actor

import (
	"slices"
	"time"

	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue/priority"
)

// core is a queue's state machine: *queue.Machine (client-go's rules) or *priority.Machine
// (controller-runtime's). The owner passes it the instants and carries out what it returns.
type core[T comparable] interface {
	Add(item T, at time.Time)
	AddNow(item T, at time.Time)
	AddAfter(item T, at time.Time)
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
	Dirty() int
	Delayed() int
	Debouncing() int
	OldestSince() (time.Time, bool)
	Superseded(item T) bool
	TrackSuperseded()
	SupersededSet() (map[T]struct{}, bool)
	Events() []metrics.Event[T]
}

// exec applies c and answers its caller, if one waits. A panic of code of others that c runs
// goes up to execAll, which answers c with it.
func (q *Queue[T]) exec(c *command[T]) {
	if q.ready != nil {
		q.fifo.Take(c.taken) // the takes that happened before c was sent
	}
	at := q.stamp(c)
	r, parked := q.apply(c, at)
	fault := q.record(at)
	switch {
	case parked: // answered later; a panic of its metrics waits for the next caller
		q.keep(fault)
	case c.op == opDo: // maybe from another queue: takes no kept panic
		c.reply <- r
	default:
		if r.fault == nil {
			r.fault = fault
		}
		q.answer(c.reply, r)
	}
}

// apply carries out c, which happened at the instant at (see stamp), and reports parked when
// the answer comes later (a getter that waits, a drain), or never (a getter that gave up).
func (q *Queue[T]) apply(c *command[T], at time.Time) (r result[T], parked bool) {
	switch c.op {
	case opAdd:
		q.core.Add(c.item, at)
	case opAddNow:
		q.core.AddNow(c.item, at)
	case opAddBatch:
		c.more.items = q.addBatch(c, at)
	case opAddAfter:
		q.core.AddAfter(c.item, q.instantOf(c.at))
	case opAddRateLimited:
		if r.gaveUp = q.counts.Count(c.item, c.lim.Retries().Max); r.gaveUp {
			c.lim.ForgetGivenUp(c.item)
			break // the caller finishes giving up
		}
		// Asked even after shutdown, as client-go does: the failure still counts.
		var d time.Duration
		if c.more != nil {
			d = c.more.delays[0] // asked by the caller
		} else {
			d = c.lim.WhenAt(c.item, q.instantOf(c.at))
		}
		if d <= 0 {
			q.core.AddNow(c.item, at)
		} else {
			q.core.AddAfter(c.item, q.instantOf(c.at).Add(d))
		}
	case opDue:
		q.duePosted = false
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
	case opDo, opSnapshot:
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
	case opSuperseded:
		if q.core.Superseded(c.item) {
			r.n = 1
		}
	case opTrackDelayed:
		q.metrics.TrackDelayed()
		q.metrics.SetDelayed(q.fifo.Delayed())
		q.startHeartbeat()
	case opShutDown:
		return q.shutDown(c)
	}
	return r, false
}

// addBatch adds the items of c in order, to a priority queue with their options (see
// priority.Batch), and returns the items given up on.
func (q *Queue[T]) addBatch(c *command[T], at time.Time) (gaveUp []T) {
	d := c.more
	if q.prio == nil {
		for _, item := range d.items {
			q.core.Add(item, at)
		}
		return nil
	}
	now := q.instantOf(c.at)
	b := priority.Batch[T]{Items: d.items, Priority: d.priority, After: d.after, Delays: d.delays,
		Plain: !d.rateLimited && d.delays == nil && d.after <= 0 && !d.timed}
	if d.rateLimited {
		b.Wait = func(item T) time.Duration { return c.lim.WhenAt(item, now) }
	}
	if d.rateLimited || d.delays != nil { // c.lim is set
		if max := c.lim.Retries().Max; max > 0 {
			b.GiveUp = func(item T) bool { return q.counts.Count(item, max) }
		}
	}
	if gaveUp = q.prio.AddBatch(b, now); len(gaveUp) > 0 {
		c.lim.ForgetGivenUp(gaveUp...)
	}
	return gaveUp
}

// forwardDue passes the items that fell due to the queue q is a delay heap in front of, each
// whatever the others do, keeping a panic.
func (q *Queue[T]) forwardDue() {
	items := q.fifo.Forwarded()
	for _, item := range items {
		q.guard(func() { q.forward(item) })
	}
	clear(items)
}

// stamp returns the instant c happened at, for the metrics and a debounce window: the caller's
// (see Queue.timed), else now; zero for neither.
func (q *Queue[T]) stamp(c *command[T]) time.Time {
	switch {
	case !q.metrics.Enabled() && q.debounces:
		return q.instant()
	case !q.metrics.Enabled():
		return time.Time{}
	case q.timed && c.callerTimed():
		return q.instantOf(c.at)
	}
	return q.clock.Now()
}
