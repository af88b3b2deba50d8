package actor

import (
	"slices"
	"time"

	"github.com/actorqueue/workqueue/queue/priority"
)

// prio are the rules of controller-runtime's priority queue (see package priority). A getter's
// request waits in the owner until an item can be handed to it: the item goes to that getter
// only, on its reply channel, as controller-runtime hands an item over an unbuffered channel to
// a getter that waits. So priorities decide at the moment of the hand-out, and a getter that
// gives up withdraws its request.
type prio[T comparable] struct {
	base[T]
	state   *priority.State[T]
	getters []chan result[T] // getters waiting for an item, oldest first
}

func (m *prio[T]) exec(c *command[T]) { m.run(c, m.apply) }

// apply carries out c. It reports parked when the answer is deferred: a getter that waits, or a
// drain.
func (m *prio[T]) apply(c *command[T]) (r result[T], parked bool) {
	switch c.op {
	case opAdd:
		if !m.shuttingDown {
			m.add(c.item, 0, 0, false, nil, time.Time{})
		}
	case opAddBatch:
		// controller-runtime drops an add once shutdown has begun, without asking its limiter,
		// and adds every item it has asked it about. So does the owner; an add whose caller has
		// asked its limiter (d.delays) is applied even if shutdown began since.
		d, now := c.more, m.instantOf(c.at)
		if m.shuttingDown && d.delays == nil {
			break
		}
		for i, item := range d.items {
			after := d.after
			if d.delays != nil {
				after = d.delays[i]
			}
			m.add(item, d.priority, after, d.rateLimited, c.lim, now)
		}
	case opDue:
		m.duePending = false
		if m.shuttingDown {
			break // a due command sent just before the shutdown
		}
		at := m.instantOf(c.at)
		for item, p, ok := m.state.PromoteDue(at); ok; item, p, ok = m.state.PromoteDue(at) {
			if m.metrics.Enabled() {
				m.metrics.Added(item, p, m.meter.Now())
			}
		}
	case opForget:
		c.lim.forget(c.item)
	case opNumRequeues:
		r.n = c.lim.numRequeues(c.item)
	case opDo:
		c.more.do()
	case opGet:
		if m.shuttingDown {
			return result[T]{shutdown: true}, false
		}
		m.getters = append(m.getters, c.reply)
		return r, true
	case opUnwant:
		// c.reply is the request of a getter that gave up; if it still waits, it is told so.
		if i := slices.Index(m.getters, c.reply); i >= 0 {
			m.getters = slices.Delete(m.getters, i, i+1)
			m.answer(c.reply, result[T]{cancelled: true})
		}
		return r, true
	case opDone:
		if m.state.Done(c.item) {
			if m.metrics.Enabled() {
				m.metrics.Finished(c.item, m.meter.Now())
			}
			if m.state.Processing() == 0 {
				m.releaseDrainers()
			}
		}
	case opLen:
		r.n = m.state.Len()
	case opSnapshot:
		r.snapshot = m.snapshot()
	case opShutDown:
		d := c.extra()
		if d.report {
			r.items = m.state.InProcessing()
		}
		if m.beginShutdown() {
			for _, getter := range m.getters {
				m.answer(getter, result[T]{shutdown: true})
			}
			m.getters = nil
		}
		parked = m.drain(d.drain, c.reply, m.state.Processing() > 0)
	}
	return r, parked
}

// add is controller-runtime's AddWithOpts for one item, sent at the instant now (which only
// matters for a delay): the item waits for the shorter of after and, when rateLimited, the wait
// l decides, or is ready at once. Its callers decide whether the queue, shutting down, takes it.
func (m *prio[T]) add(item T, priority int, after time.Duration, rateLimited bool, l *Limiter[T], now time.Time) {
	if rateLimited {
		after = shorter(after, l.whenAt(item, now))
	}
	var readyAt time.Time
	if after > 0 {
		readyAt = now.Add(after)
		m.metrics.Retried()
	}
	a := m.state.Add(item, priority, readyAt)
	if a.Ready && m.metrics.Enabled() {
		m.metrics.Added(item, a.Priority, m.meter.Now())
	}
	if a.Raised {
		m.metrics.Reprioritized(a.From, a.Priority)
	}
}

// refill hands the best ready items to the getters that wait, oldest getter first. A getter
// that must raise a panic instead (of the metrics, as its item starts, or stashed) gets the
// panic, and its item goes back to the queue for the next getter.
func (m *prio[T]) refill() {
	for len(m.getters) > 0 {
		item, p, ok := m.state.HandOut(m.now())
		if !ok {
			return
		}
		getter := m.getters[0]
		m.getters = slices.Delete(m.getters, 0, 1)
		m.handOut(getter, item, p)
	}
}

// handOut answers getter with item, of priority p, which it has handed out. If the metrics
// panic as the item starts, the getter gets the panic instead, and the item goes back.
func (m *prio[T]) handOut(getter chan result[T], item T, p int) {
	var fault any
	if m.metrics.Enabled() {
		fault = m.started(item, p, m.meter.Now())
	}
	if fault = m.owed(fault); fault != nil {
		m.giveBack(item, p)
		m.answer(getter, result[T]{fault: fault})
		return
	}
	m.answer(getter, result[T]{item: item, n: p})
}

// giveBack returns item, of priority, handed to a getter that panicked instead, to the ready
// items, behind those of its priority.
func (m *prio[T]) giveBack(item T, priority int) {
	m.state.Done(item)
	m.state.Add(item, priority, time.Time{})
	if m.metrics.Enabled() {
		m.returned(item, priority, m.meter.Now())
	}
}

// prefetch reads nothing ahead: a priority queue keeps its items in structures of its own, which
// no measured workload has grown beyond the cache.
func (m *prio[T]) prefetch([]command[T]) {}

func (m *prio[T]) catchUp() { m.catchUpWith(m.nextDue()) }

// resting returns the length with no takes to allow for: a getter's item is in processing as
// soon as it is handed over.
func (m *prio[T]) resting() resting {
	return resting{known: m.stash == nil, length: m.state.Len()}
}

func (m *prio[T]) deadline() time.Time { return m.earliest(m.nextDue()) }

// nextDue returns the instant the earliest waiting item becomes ready, and false when none
// will: once shutdown has begun, waiting items stay waiting, drain or not, as in
// controller-runtime, whose waiting loop ends with the shutdown.
func (m *prio[T]) nextDue() (time.Time, bool) {
	if m.shuttingDown {
		return time.Time{}, false
	}
	return m.state.NextDue()
}

// snapshot returns the queue's counts at this instant. Dirty counts the items added again while
// handed out: they wait for Done.
func (m *prio[T]) snapshot() Snapshot {
	s := Snapshot{
		Queued:       m.state.Len(),
		Processing:   m.state.Processing(),
		Dirty:        m.state.Blocked(),
		Delayed:      m.state.Waiting(),
		ShuttingDown: m.shuttingDown,
	}
	if since, ok := m.state.OldestSince(); ok {
		s.OldestInFlight = m.clock.Since(since)
	}
	return s
}
