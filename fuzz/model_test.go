package fuzz

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// model is the reference queue: client-go's design, written plainly. One mutex guards a FIFO,
// the set of dirty items (added and not yet handed out), the set of items in processing and
// the waiting room of delayed items; one condition variable wakes Get and ShutDownWithDrain.
// It differs from client-go exactly where this library documents it does: Done of an item not
// in processing does nothing, an unhashable item panics in every method, and the limiter's
// exponential backoff stops at its maximum instead of overflowing. Blocked getters take items
// in the order they began to wait, as the library's do (client-go's condition variable leaves
// that open), so that a getter that gives up (see GetWithContext) leaves the same getters
// behind on both sides.
//
// It has every method of a rate-limiting queue and the library's extensions; create it with
// newModel. Its methods are safe for simultaneous use.
type model[T comparable] struct {
	mu           sync.Mutex
	changed      *sync.Cond // broadcast whenever a blocked Get or drain may go on
	fifo         []T
	queuedAt     map[T]time.Time // when each item in fifo joined it
	dirty        map[T]bool
	processing   map[T]flight
	getters      []*int // the blocked getters, oldest first; each is known by its address
	shuttingDown bool
	drain        bool // a ShutDownWithDrain waits, and no ShutDown has ended it
	asks         bool // the queue reserves items when getters ask: see inFlightBounds
	waiting      waitHeap[T]
	alarm        *time.Timer // fires when the earliest waiting item is due
	*limited[T]
}

// flight is an item in processing: when it joined the FIFO, and when a getter took it.
type flight struct{ queuedAt, takenAt time.Time }

// newModel returns an empty model whose AddRateLimited asks limiter.
func newModel[T comparable](limiter reference[T]) *model[T] {
	m := &model[T]{
		queuedAt:   make(map[T]time.Time),
		dirty:      make(map[T]bool),
		processing: make(map[T]flight),
		limited:    &limited[T]{limiter: limiter},
	}
	m.changed = sync.NewCond(&m.mu)
	return m
}

func (m *model[T]) Add(item T) {
	mustHash("Add", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.add(item)
}

// add is Add with the lock held.
func (m *model[T]) add(item T) {
	if m.shuttingDown || m.dirty[item] {
		return
	}
	m.dirty[item] = true
	if _, ok := m.processing[item]; !ok {
		m.queue(item)
	}
}

// queue appends item to the FIFO, with the lock held.
func (m *model[T]) queue(item T) {
	m.fifo = append(m.fifo, item)
	m.queuedAt[item] = time.Now()
	m.changed.Broadcast()
}

func (m *model[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.fifo)
}

func (m *model[T]) Get() (item T, shutdown bool) {
	item, shutdown, _ = m.get(nil)
	return item, shutdown
}

// get is Get, given up when ctx (which may be nil) is done: then it returns ctx.Err(). A
// getter waits for its turn, behind the getters that began to wait before it.
func (m *model[T]) get(ctx context.Context) (item T, shutdown bool, err error) {
	if ctx != nil {
		stop := context.AfterFunc(ctx, m.wake)
		defer stop()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	me := new(int)
	m.getters = append(m.getters, me)
	defer m.leave(me)
	for m.getters[0] != me || (len(m.fifo) == 0 && !m.shuttingDown) {
		if ctx != nil && ctx.Err() != nil {
			return item, false, ctx.Err()
		}
		m.changed.Wait()
	}
	if len(m.fifo) == 0 {
		return item, true, nil
	}
	item = m.fifo[0]
	m.fifo = m.fifo[1:]
	m.processing[item] = flight{queuedAt: m.queuedAt[item], takenAt: time.Now()}
	delete(m.queuedAt, item)
	delete(m.dirty, item)
	return item, false, nil
}

// leave removes the getter me, with the lock held, and lets the next one have its turn.
func (m *model[T]) leave(me *int) {
	m.getters = slices.DeleteFunc(m.getters, func(g *int) bool { return g == me })
	m.changed.Broadcast()
}

// wake wakes every blocked call, to look again.
func (m *model[T]) wake() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.changed.Broadcast()
}

func (m *model[T]) Done(item T) {
	mustHash("Done", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.processing[item]; !ok {
		return
	}
	delete(m.processing, item)
	if m.dirty[item] {
		m.queue(item)
	}
	m.changed.Broadcast()
}

func (m *model[T]) ShutDown() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutDown()
	m.drain = false
}

func (m *model[T]) ShutDownWithDrain() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutDown()
	m.drain = true
	for len(m.processing) > 0 && m.drain {
		m.changed.Wait()
	}
}

// shutDown starts the shutdown, with the lock held: delayed items are dropped.
func (m *model[T]) shutDown() {
	m.shuttingDown = true
	m.waiting.clear()
	m.setAlarm()
	m.changed.Broadcast()
}

func (m *model[T]) ShuttingDown() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.shuttingDown
}

func (m *model[T]) AddAfter(item T, delay time.Duration) {
	mustHash("AddAfter", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.addAfter(item, delay)
}

// addAfter is AddAfter with the lock held.
func (m *model[T]) addAfter(item T, delay time.Duration) {
	switch {
	case m.shuttingDown:
	case delay <= 0:
		m.add(item)
	default:
		m.waiting.schedule(item, time.Now().Add(delay))
		m.setAlarm()
	}
}

// setAlarm arms the alarm for the earliest waiting item, or stops it when none waits.
func (m *model[T]) setAlarm() {
	if m.alarm != nil {
		m.alarm.Stop()
		m.alarm = nil
	}
	if w := m.waiting.next(); w != nil {
		m.alarm = time.AfterFunc(time.Until(w.at), m.release)
	}
}

// release adds the waiting items that are due.
func (m *model[T]) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for {
		item, ok := m.waiting.pop(now)
		if !ok {
			break
		}
		m.add(item)
	}
	m.setAlarm()
}

func (m *model[T]) AddRateLimited(item T) {
	mustHash("AddRateLimited", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.addAfter(item, m.when(item, time.Now()))
}

// limited is a reference rate limiter behind a mutex of its own, with the Forget and
// NumRequeues of a rate-limiting queue: the models embed it.
type limited[T comparable] struct {
	guard   sync.Mutex
	limiter reference[T]
}

// when asks the limiter how long item waits, at now.
func (l *limited[T]) when(item T, now time.Time) time.Duration {
	l.guard.Lock()
	defer l.guard.Unlock()
	return l.limiter.when(item, now)
}

func (l *limited[T]) Forget(item T) {
	mustHash("Forget", item)
	l.guard.Lock()
	defer l.guard.Unlock()
	l.limiter.forget(item)
}

func (l *limited[T]) NumRequeues(item T) int {
	mustHash("NumRequeues", item)
	l.guard.Lock()
	defer l.guard.Unlock()
	return l.limiter.requeues(item)
}

// mustHash panics with a workqueue: message naming method if item cannot be a map key.
func mustHash[T comparable](method string, item T) {
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("workqueue: %s: unhashable item %T: %v", method, item, r))
		}
	}()
	_ = map[T]bool{item: true}
}
