package fuzz

import (
	"fmt"
	"sync"
	"time"
)

// model is the reference queue: client-go's design, written plainly. One mutex guards a FIFO,
// the set of dirty items (added and not yet handed out), the set of items in processing and
// the waiting room of delayed items; one condition variable wakes Get and ShutDownWithDrain.
// It differs from client-go exactly where this library documents it does: Done of an item not
// in processing does nothing, an unhashable item panics in every method, and the limiter's
// exponential backoff stops at its maximum instead of overflowing.
//
// It has every method of a rate-limiting queue; create it with newModel. Its methods are safe
// for simultaneous use.
type model[T comparable] struct {
	mu           sync.Mutex
	changed      *sync.Cond // broadcast whenever a blocked Get or drain may go on
	fifo         []T
	dirty        map[T]bool
	processing   map[T]bool
	shuttingDown bool
	drain        bool // a ShutDownWithDrain waits, and no ShutDown has ended it
	waiting      waitHeap[T]
	alarm        *time.Timer // fires when the earliest waiting item is due
	limiter      reference[T]
}

// newModel returns an empty model whose AddRateLimited asks limiter.
func newModel[T comparable](limiter reference[T]) *model[T] {
	m := &model[T]{dirty: make(map[T]bool), processing: make(map[T]bool), limiter: limiter}
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
	if !m.processing[item] {
		m.fifo = append(m.fifo, item)
		m.changed.Broadcast()
	}
}

func (m *model[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.fifo)
}

func (m *model[T]) Get() (item T, shutdown bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.fifo) == 0 && !m.shuttingDown {
		m.changed.Wait()
	}
	if len(m.fifo) == 0 {
		return item, true
	}
	item = m.fifo[0]
	m.fifo = m.fifo[1:]
	m.processing[item] = true
	delete(m.dirty, item)
	return item, false
}

func (m *model[T]) Done(item T) {
	mustHash("Done", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.processing[item] {
		return
	}
	delete(m.processing, item)
	if m.dirty[item] {
		m.fifo = append(m.fifo, item)
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
	m.addAfter(item, m.limiter.when(item, time.Now()))
}

func (m *model[T]) Forget(item T) {
	mustHash("Forget", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limiter.forget(item)
}

func (m *model[T]) NumRequeues(item T) int {
	mustHash("NumRequeues", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.limiter.requeues(item)
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
