package actor

import (
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/delay"
	"github.com/actorqueue/workqueue/queue"
)

// fifo are client-go's rules: a state machine of waiting, reserved and processing items (see
// package queue), a separate delay heap whose due items are added like any item, and items
// handed to getters ahead of demand through ready.
type fifo[T comparable] struct {
	base[T]
	state   *queue.State[T]
	waiting delay.Heap[T] // items added with a delay, until they are due
	forward func(T)       // when set, items go here instead of into state

	ready     chan handoff[T]
	taken     *atomic.Uint64 // the watermark of takes (see mailbox)
	overflow  *atomic.Bool   // items wait that ready had no room for (see refill)
	readAhead bool           // reserve items before getters ask
	timed     bool           // adds, takes and Dones carry their callers' instants (async metrics)
	wanted    int            // getters waiting for an item, when not reading ahead
	delayed   int            // the delay heap's size the metrics last heard of
	owedTo    map[T]any      // panics of the metrics as items started, owed to their getters
	lookahead []T            // room for the items prefetch reads ahead for
}

func (m *fifo[T]) exec(c *command[T]) {
	m.take(c.taken) // the takes that happened before c
	m.run(c, m.apply)
}

// apply carries out c. It reports parked when the answer is deferred (a drain that must wait).
func (m *fifo[T]) apply(c *command[T]) (r result[T], parked bool) {
	switch c.op {
	case opAdd:
		m.add(c.item, m.timeOf(c))
	case opAddBatch:
		at := m.timeOf(c)
		for _, item := range c.more.items {
			m.add(item, at)
		}
	case opAddAfter:
		if !m.shuttingDown {
			m.waiting.Schedule(c.item, c.at)
		}
	case opAddRateLimited:
		// Asked even after shutdown, as client-go does: the failure still counts.
		d := c.lim.whenAt(c.item, m.instantOf(c.at))
		if m.shuttingDown {
			break
		}
		if d <= 0 {
			m.add(c.item, time.Time{})
		} else {
			m.waiting.Schedule(c.item, later(c.at, d))
		}
	case opDue:
		m.duePending = false
		for item, ok := m.waiting.PopDue(c.at); ok; item, ok = m.waiting.PopDue(c.at) {
			m.addDue(item)
		}
	case opForget:
		c.lim.forget(c.item)
	case opNumRequeues:
		r.n = c.lim.numRequeues(c.item)
	case opDo:
		c.more.do()
	case opWant:
		if !m.shuttingDown {
			m.wanted++
		}
	case opUnwant:
		// The getter gave up. If its item is already in ready, wanted goes below zero: that item
		// serves the next getter that asks.
		m.wanted--
	case opTaken: // the stamp took the item; the getter hears whether its metrics panicked
		if m.timed {
			m.keep(m.started(c.item, 0, m.instantOf(c.at)))
			break
		}
		r.fault = m.claim(c.item)
	case opGiveBack:
		m.giveBack(c.item)
	case opDone:
		m.done(c.item, m.timeOf(c))
	case opLen:
		r.n = m.state.Len()
	case opSnapshot:
		r.snapshot = m.snapshot()
	case opTrackDelayed:
		m.metrics.TrackDelayed()
		m.metrics.SetDelayed(m.waiting.Len())
		m.startHeartbeat()
	case opGet:
		r = m.getNow()
	case opShutDown:
		d := c.extra()
		if d.report {
			r.items = m.state.InProcessing()
		}
		if m.beginShutdown() {
			m.waiting.Clear()
			m.wanted = 0
			m.state.LiftLimits() // getters are served from now on without waiting for Dones
		}
		// The metrics hear of the cleared delay heap first: should they fail once the reply is
		// parked, it would be answered twice, with the fault and at the drain's end.
		m.noteDelayed()
		parked = m.drain(d.drain, c.reply, !m.idle())
	}
	m.noteDelayed()
	return r, parked
}

// prefetch reads ahead the slots of the items that commands add, in the state's set of waiting
// items, once a producer running ahead of the workers has filled it beyond the cache.
func (m *fifo[T]) prefetch(commands []command[T]) {
	if !m.state.Outgrown() {
		return
	}
	items := m.lookahead[:0]
	for i := range commands {
		if commands[i].op == opAdd {
			items = append(items, commands[i].item)
		}
	}
	m.state.Prefetch(items)
	clear(items) // hold no item past its processing
	m.lookahead = items
}

// timeOf returns the instant of c's call for the metrics: the one it carries when callers read
// the clock (see Queue.timed), and otherwise the zero time, which means now.
func (m *fifo[T]) timeOf(c *command[T]) time.Time {
	if m.timed {
		return m.instantOf(c.at)
	}
	return time.Time{}
}

// add marks item, added at the instant at (zero: now), as needing processing, unless the queue
// is shutting down.
func (m *fifo[T]) add(item T, at time.Time) {
	switch {
	case m.shuttingDown:
		return
	case m.forward != nil:
		m.forward(item)
		return
	}
	if m.timed {
		m.addFirst(item, at) // nobody waits for the panic
		return
	}
	// The metrics hear of an add before the state changes, as in client-go: if they panic, the
	// item is not added, and the caller gets the panic.
	m.hearAdd(item, at)
	m.state.Add(item)
}

// addDue is add for an item that fell due, which no caller waits for: it is added first, and
// then the metrics hear of it, so that it is not lost if they panic (the panic is kept for the
// next caller that waits; client-go's process ends there) or end the goroutine.
func (m *fifo[T]) addDue(item T) {
	if m.shuttingDown || m.forward != nil || !m.metrics.Enabled() {
		m.add(item, time.Time{})
		return
	}
	m.addFirst(item, time.Time{})
}

// addFirst adds item, then tells the metrics, stashing their panic: for an add no caller waits
// for, which must not be lost to a failing metric. at is the instant of the add (zero: now).
func (m *fifo[T]) addFirst(item T, at time.Time) {
	pending := m.state.Pending(item)
	m.state.Add(item)
	if !pending {
		m.guard(func() { m.added(item, at) })
	}
}

// hearAdd tells the metrics that item is added at the instant at (zero: now), unless it is
// pending already.
func (m *fifo[T]) hearAdd(item T, at time.Time) {
	if m.metrics.Enabled() && !m.state.Pending(item) {
		m.added(item, at)
	}
}

// added tells the metrics that item is added at the instant at (zero: now).
func (m *fifo[T]) added(item T, at time.Time) {
	if at.IsZero() {
		at = m.clock.Now()
	}
	m.metrics.Added(item, 0, at)
}

// take starts every reservation up to upTo that is not started yet. A panic of the metrics as
// an item starts is not raised: every reservation starts all the same, so that none is left
// reserved behind one whose metrics failed, and the panic is owed to the getter that took the
// item, which claims it when it confirms its take (a queue with metrics waits for every
// command). The Get that took the item thus panics, as client-go's does, rather than the caller
// of whichever command carried the take.
//
// With asynchronous metrics the getter's own opTaken, which follows, tells the metrics when the
// take happened: take leaves them alone.
func (m *fifo[T]) take(upTo uint64) {
	for item, ok := m.state.TakeNext(upTo); ok; item, ok = m.state.TakeNext(upTo) {
		if !m.metrics.Enabled() || m.timed {
			continue
		}
		if p := m.started(item, 0, m.clock.Now()); p != nil {
			m.owe(item, p)
		}
	}
}

// owe records that the panic p is owed to the getter of item. An item not equal to itself (a
// NaN) cannot be claimed: its panic is stashed, for the next caller that waits.
func (m *fifo[T]) owe(item T, p any) {
	if item != item {
		m.keep(p)
		return
	}
	if m.owedTo == nil {
		m.owedTo = make(map[T]any)
	}
	if _, ok := m.owedTo[item]; !ok {
		m.owedTo[item] = p
	}
}

// claim returns the panic owed to the getter of item, if any, and forgets it.
func (m *fifo[T]) claim(item T) any {
	p, ok := m.owedTo[item]
	if ok {
		delete(m.owedTo, item)
	}
	return p
}

// giveBack ends the processing of item, handed to a getter that panicked instead, as though it
// had never been handed out: it waits again, at the back of the queue, even after shutdown, for
// the items still waiting then are handed out too. (client-go's Get loses the item.)
func (m *fifo[T]) giveBack(item T) {
	m.state.Add(item) // being processed: marked to go back into storage on Done
	if !m.state.Done(item) {
		return
	}
	if len(m.drainers) > 0 && m.idle() {
		m.releaseDrainers()
	}
	if m.metrics.Enabled() {
		m.returned(item, 0, m.clock.Now())
	}
}

// done ends the processing of item at the instant at (zero: now), and ends waiting drains once
// nothing is in processing.
func (m *fifo[T]) done(item T, at time.Time) {
	switch {
	case m.timed: // nobody waits for the panic: the item moves on whatever the metrics do
		defer m.guard(func() { m.metrics.Finished(item, at) })
	case m.metrics.Enabled():
		// The metrics hear of it first, as in client-go: if they panic, item stays in processing.
		m.metrics.Finished(item, m.clock.Now())
	}
	if !m.state.Done(item) {
		return
	}
	if len(m.drainers) > 0 && m.idle() {
		m.releaseDrainers()
	}
}

// idle reports whether no item is being processed, counting those that getters have taken
// from ready beyond the takes the owner has applied. A take sends no command: the owner applies
// it with the next command stamped after it (see mailbox), but the item is in a worker's hands
// from the take on, so a drain that ended without it would return while the item is still
// processed. This is what a worker looping from Done to Get does: its Done can reach the owner
// after its next take, and client-go's drain, which looks at processing only once it has the
// lock back, then waits for that item too. The watermark, which getters write, is read only
// when nothing else is in processing.
func (m *fifo[T]) idle() bool {
	if m.state.Processing() > 0 {
		return false
	}
	started := m.state.LastReservation() - uint64(m.state.Reservations())
	return m.taken.Load() <= started
}

// getNow hands out the next item at once, or reports shutdown when none waits. It serves
// getters once the queue is shutting down, when items no longer move ahead to ready: the
// items already there come first, as they are the oldest.
func (m *fifo[T]) getNow() result[T] {
	var item T
	var fault any
	var h handoff[T]
	held := false
	select {
	case h = <-m.ready:
		held = true
	default:
	}
	switch {
	case held:
		if h.fault != nil {
			panic(h.fault)
		}
		raise(m.taken, h.seq) // for the commands still to be stamped
		m.takeMine(h)
		item, fault = h.item, m.claim(h.item)
	default:
		// Every reservation has left ready: each is in the hands of a getter whose take is on
		// its way. Take them all before counting the queue empty, so that no later command
		// counts one of them as waiting.
		last := m.state.LastReservation()
		raise(m.taken, last)
		m.take(last)
		next, seq, ok := m.state.Reserve(m.now())
		if !ok {
			return result[T]{shutdown: true}
		}
		raise(m.taken, seq)
		m.takeMine(handoff[T]{item: next, seq: seq})
		item, fault = next, m.claim(next)
	}
	if fault = m.owed(fault); fault != nil {
		m.giveBack(item)
		return result[T]{fault: fault}
	}
	return result[T]{item: item}
}

// resting counts the reserved items as waiting, and says which reservations had started: those
// taken after it count as taken when Len reads it (see mailbox.length).
func (m *fifo[T]) resting() resting {
	started := m.state.LastReservation() - uint64(m.state.Reservations())
	return resting{known: m.stash == nil, length: m.state.Len(), started: started}
}

// takeMine is take for a Get the owner applies (see getNow), up to the item it takes for
// itself, mine.
func (m *fifo[T]) takeMine(mine handoff[T]) {
	m.take(mine.seq)
	if m.timed { // no getter's opTaken follows this take
		if p := m.started(mine.item, 0, m.clock.Now()); p != nil {
			m.owe(mine.item, p)
		}
	}
}

func (m *fifo[T]) catchUp() { m.catchUpWith(m.nextDue()) }

// noteDelayed tells the metrics how many items wait in the delay heap, when that changed.
func (m *fifo[T]) noteDelayed() {
	if n := m.waiting.Len(); n != m.delayed {
		m.delayed = n
		m.metrics.SetDelayed(n)
	}
}

// snapshot returns the queue's counts at this instant.
func (m *fifo[T]) snapshot() Snapshot {
	s := Snapshot{
		Queued:       m.state.Len(),
		Processing:   m.state.Processing(),
		Dirty:        m.state.Requeued(),
		Delayed:      m.waiting.Len(),
		ShuttingDown: m.shuttingDown,
	}
	if since, ok := m.state.OldestSince(); ok {
		s.OldestInFlight = m.clock.Since(since)
	}
	return s
}

func (m *fifo[T]) deadline() time.Time { return m.earliest(m.nextDue()) }

// nextDue returns the instant the earliest delayed item falls due, and false when none waits.
func (m *fifo[T]) nextDue() (time.Time, bool) {
	at, ok := m.waiting.Next()
	return m.instantOf(at), ok
}
