package actor

import (
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/delay"
	"github.com/actorqueue/workqueue/internal/mutant"
	"github.com/actorqueue/workqueue/limiter"
	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue"
)

// unfinishedPeriod is how often the unfinished-work gauges move while items are in processing,
// as in client-go.
const unfinishedPeriod = 500 * time.Millisecond

// machine is a queue's state and the rules that apply commands to it. The owner goroutine uses
// it, and after the handover one caller at a time, holding the handover lock. It starts no
// goroutines and never blocks: every channel it sends on has room by construction.
type machine[T comparable] struct {
	state   *queue.State[T]
	waiting delay.Heap[T] // items added with a delay, until they are due
	metrics *metrics.Queue[T]
	clock   clock.Clock
	forward func(T) // when set, items go here instead of into state

	mailbox  *mailbox[T] // the queue's mailbox, where the owner posts the items that fall due
	ready    chan handoff[T]
	taken    *atomic.Uint64 // the watermark of takes (see mailbox)
	closing  chan struct{}  // closed when shutdown begins
	stopping *atomic.Bool   // shuttingDown, for readers outside the owner

	readAhead    bool // reserve items before getters ask
	wanted       int  // getters waiting for an item, when not reading ahead
	shuttingDown bool
	drainers     []chan result[T] // ShutDownWithDrain callers waiting for processing to end
	stash        any              // a panic nobody waited for

	created time.Time // origin of the unfinished-work ticks, as client-go's ticker
	tickAt  time.Time // next unfinished-work update; zero while none is due

	instant time.Time // the current instant, read once per turn; zero until read
	delayed int       // the delay heap's size the metrics last heard of
}

// exec applies c and answers its caller, if one waits. A panic while applying c is answered
// instead; with nobody waiting, it is stashed for the next caller that waits.
func (m *machine[T]) exec(c *command[T]) {
	m.take(c.taken) // the takes that happened before c
	var r result[T]
	parked := false
	defer func() {
		if p := recover(); p != nil {
			r, parked = result[T]{fault: p}, false
		}
		if !parked {
			m.answer(c.reply, r)
		}
	}()
	r, parked = m.apply(c)
}

// answer sends r to reply, or stashes its fault when reply is nil. A stashed panic rides on the
// first answer that has none of its own.
func (m *machine[T]) answer(reply chan result[T], r result[T]) {
	if reply == nil {
		m.keep(r.fault)
		return
	}
	if r.fault == nil {
		r.fault, m.stash = m.stash, nil
	}
	reply <- r
}

// keep stashes the panic p, unless one is stashed already.
func (m *machine[T]) keep(p any) {
	if m.stash == nil {
		m.stash = p
	}
}

// guard runs f, stashing its panic: for work that no caller waits on.
func (m *machine[T]) guard(f func()) {
	defer func() {
		if p := recover(); p != nil {
			m.keep(p)
		}
	}()
	f()
}

// apply carries out c. It reports parked when the answer is deferred (a drain that must wait).
func (m *machine[T]) apply(c *command[T]) (r result[T], parked bool) {
	switch c.op {
	case opAdd:
		m.add(c.item)
	case opAddBatch:
		for _, item := range c.items {
			m.add(item)
		}
	case opAddAfter:
		if !m.shuttingDown {
			m.waiting.Schedule(c.item, c.at)
		}
	case opAddRateLimited:
		// Asked even after shutdown, as client-go does: the failure still counts.
		d := limiter.WhenAt(c.lim.limiter, c.item, c.at)
		if d <= 0 {
			m.add(c.item)
		} else if !m.shuttingDown {
			m.waiting.Schedule(c.item, c.at.Add(d))
		}
	case opForget:
		c.lim.limiter.Forget(c.item)
	case opNumRequeues:
		r.n = c.lim.limiter.NumRequeues(c.item)
	case opWant:
		if !m.shuttingDown {
			m.wanted++
		}
	case opUnwant:
		// The getter gave up. If its item is already in ready, wanted goes below zero: that item
		// serves the next getter that asks.
		m.wanted--
	case opTaken: // the stamp did it
	case opDone:
		m.done(c.item)
	case opLen:
		r.n = m.state.Len()
	case opSnapshot:
		r.snapshot = m.snapshot()
	case opGet:
		r = m.getNow()
	case opShutDown:
		if c.report {
			r.items = m.state.InProcessing()
		}
		parked = m.shutDown(c.drain, c.reply)
	}
	m.noteDelayed()
	return r, parked
}

// add marks item as needing processing, unless the queue is shutting down.
func (m *machine[T]) add(item T) {
	switch {
	case m.shuttingDown:
		return
	case m.forward != nil:
		m.forward(item)
		return
	}
	if m.state.Add(item) && m.metrics.Enabled() {
		m.metrics.Added(item, m.clock.Now())
	}
}

// take starts every reservation up to upTo that is not started yet.
func (m *machine[T]) take(upTo uint64) {
	for {
		item, ok := m.state.TakeNext(upTo)
		if !ok {
			return
		}
		if m.metrics.Enabled() {
			now := m.clock.Now()
			m.metrics.Started(item, now)
			if m.tickAt.IsZero() && !m.shuttingDown {
				m.tickAt = m.nextTick(now)
			}
		}
	}
}

// done ends the processing of item, and ends waiting drains once nothing is in processing.
func (m *machine[T]) done(item T) {
	if !m.state.Done(item) {
		return
	}
	if m.metrics.Enabled() {
		m.metrics.Finished(item, m.clock.Now())
	}
	if m.state.Processing() == 0 {
		m.releaseDrainers()
	}
}

// getNow hands out the next item at once, or reports shutdown when none waits. It serves
// getters once the queue is shutting down, when items no longer move ahead to ready: the
// items already there come first, as they are the oldest.
func (m *machine[T]) getNow() result[T] {
	select {
	case h := <-m.ready:
		if h.fault != nil {
			panic(h.fault)
		}
		raise(m.taken, h.seq) // for the commands still to be stamped
		m.take(h.seq)
		return result[T]{item: h.item}
	default:
	}
	item, seq, ok := m.state.Reserve(m.now())
	if !ok {
		return result[T]{shutdown: true}
	}
	raise(m.taken, seq)
	m.take(seq)
	return result[T]{item: item}
}

// shutDown starts the shutdown if it has not started, then either ends every drain (a plain
// ShutDown) or parks reply until processing ends (ShutDownWithDrain), and reports whether it
// parked.
func (m *machine[T]) shutDown(drain bool, reply chan result[T]) bool {
	if !m.shuttingDown {
		m.shuttingDown = true
		m.stopping.Store(true)
		close(m.closing)
		m.waiting.Clear()
		m.wanted = 0
		m.tickAt = time.Time{}
	}
	if !drain {
		m.releaseDrainers()
		return false
	}
	if m.state.Processing() == 0 || mutant.Active(mutant.EarlyDrain) {
		return false
	}
	m.drainers = append(m.drainers, reply)
	return true
}

func (m *machine[T]) releaseDrainers() {
	for _, reply := range m.drainers {
		m.answer(reply, result[T]{})
	}
	m.drainers = nil
}

// finished reports whether the owner may leave: shutdown has begun and no drain waits.
func (m *machine[T]) finished() bool { return m.shuttingDown && len(m.drainers) == 0 }

// refill puts reserved items on their way to getters: as many as ready holds when reading
// ahead, otherwise one per waiting getter.
func (m *machine[T]) refill() {
	for !m.shuttingDown && len(m.ready) < cap(m.ready) && (m.readAhead || m.wanted > 0) {
		h, ok := m.reserve()
		if !ok {
			return
		}
		m.ready <- h
		if !m.readAhead {
			m.wanted--
		}
	}
}

// reserve reserves the next item; a panic from the storage becomes a handoff carrying it.
func (m *machine[T]) reserve() (h handoff[T], ok bool) {
	defer func() {
		if p := recover(); p != nil {
			h, ok = handoff[T]{fault: p}, true
		}
	}()
	item, seq, ok := m.state.Reserve(m.now())
	return handoff[T]{item: item, seq: seq}, ok
}

// wake does the work that time brings: it releases the delayed items that are due and, when
// due, updates the unfinished-work gauges.
//
// Due items are released as one command posted to the mailbox, not added on the spot: like
// any command it is stamped with the takes so far, and applied after the commands sent
// before it. Added on the spot, a due item could meet a take that happened before it but has
// not reached the owner yet, and be dropped as a duplicate of the item in processing.
func (m *machine[T]) wake() {
	if m.waiting.Len() == 0 && m.tickAt.IsZero() {
		return
	}
	now := m.clock.Now()
	m.instant = now
	var due []T
	for {
		item, ok := m.waiting.PopDue(now)
		if !ok {
			break
		}
		due = append(due, item)
	}
	if due != nil {
		m.mailbox.put(command[T]{op: opAddBatch, items: due})
	}
	m.guard(m.noteDelayed)
	if !m.tickAt.IsZero() && !now.Before(m.tickAt) {
		m.guard(func() { m.metrics.UpdateUnfinished(now) })
		m.tickAt = time.Time{}
		if m.metrics.InFlight() {
			m.tickAt = m.nextTick(now)
		}
	}
}

// now returns the current instant, read from the clock at most once per turn: for the start
// times of items in processing, where a turn's precision is plenty.
func (m *machine[T]) now() time.Time {
	if m.instant.IsZero() {
		m.instant = m.clock.Now()
	}
	return m.instant
}

// noteDelayed tells the metrics how many items wait in the delay heap, when that changed.
func (m *machine[T]) noteDelayed() {
	if n := m.waiting.Len(); n != m.delayed {
		m.delayed = n
		m.metrics.SetDelayed(n)
	}
}

// snapshot returns the queue's counts at this instant.
func (m *machine[T]) snapshot() Snapshot {
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

// deadline returns the instant the owner must wake at if no command comes first, or zero.
func (m *machine[T]) deadline() time.Time {
	at, ok := m.waiting.Next()
	if !m.tickAt.IsZero() && (!ok || m.tickAt.Before(at)) {
		return m.tickAt
	}
	return at
}

// nextTick returns the first unfinished-work tick after now.
func (m *machine[T]) nextTick(now time.Time) time.Time {
	ticks := now.Sub(m.created)/unfinishedPeriod + 1
	return m.created.Add(ticks * unfinishedPeriod)
}
