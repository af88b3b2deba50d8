package fuzz

import (
	"slices"
	"sync"
	"time"

	"github.com/actorqueue/workqueue"
)

// groupModel is the reference of a FIFO queue with the options of issue 28, written from the
// package documentation ("Groups, fairness and limits", "Retries") without the library's
// storage: a list of queued items per group, a list of the groups whose turn may come, in turn
// order, and the items in processing with their group. Its rules:
//
//   - An item added joins the back of its group's list (an item added during its processing
//     joins it at its Done, in the group it had). A group with queued items and fewer than
//     limit items in processing (any number when limit is 0, or once the queue shuts down)
//     joins the back of the turns when it is not in them.
//   - A getter takes the first item of the group at the front of the turns; that group leaves
//     the turns and joins their back again if it still may. A group that reaches its limit
//     stays out of the turns until one of its items is done.
//   - ShutDown lifts the limit: the groups held at it join the turns in the order of their
//     names, and getters receive every queued item before shutdown.
//   - AddRateLimited counts the item's calls since its last Forget or give-up; the call after
//     maxRetries of them (0: no maximum) gives up instead of adding: the count and the
//     limiter's failures are forgotten, then giveUp hears of the item with the count.
//   - With a debounce window (see debounce), Add of an item that is neither queued nor due
//     again at its Done holds it instead: it is added once Window has passed since its last
//     Add, or MaxWait since the first Add it is held for. A held item added is held afresh. An
//     add from AddAfter or AddRateLimited (due, or with no wait) ends the hold, covering it.
//     Items held and delayed items due at one instant are added in the order of their
//     instants, the delayed first on a tie; ShutDown drops every item held, as it drops the
//     delayed ones. An item in processing with a later Add (due again, or held) is superseded.
//
// Delays and the rate limiter are those of model (waitHeap, limited). Getters wait in line and
// receive on a channel of their own. Its methods are safe for simultaneous use.
type groupModel[T comparable] struct {
	mu      sync.Mutex
	groupOf func(T) string
	limit   int
	lifted  bool
	lists   map[string][]T // each group's queued items, oldest first
	turns   []string       // the groups whose turn may come, next first
	out     map[string]int // each group's items in processing
	working map[T]string   // the items in processing, with their group
	dirty   map[T]bool     // queued, or to queue again at Done

	getters      []chan groupAnswer[T] // oldest first; each buffered 1
	shuttingDown bool
	drain        bool
	drained      *sync.Cond
	waiting      waitHeap[T]
	alarm        *time.Timer

	debounce workqueue.Debounce
	first    map[T]time.Time // each held item's first Add of its hold
	holds    waitHeap[T]     // the held items, by the instant they are added

	*limited[T]
	maxRetries int
	counts     map[T]int
	giveUp     func(T, int)
}

type groupAnswer[T any] struct {
	item     T
	shutdown bool
}

// newGroupModel returns an empty model; limiter may be nil for a queue without one.
func newGroupModel[T comparable](groupOf func(T) string, limit int, limiter reference[T], maxRetries int, giveUp func(T, int)) *groupModel[T] {
	m := &groupModel[T]{
		groupOf: groupOf, limit: limit,
		lists: make(map[string][]T), out: make(map[string]int),
		working: make(map[T]string), dirty: make(map[T]bool), first: make(map[T]time.Time),
		limited:    &limited[T]{limiter: limiter},
		maxRetries: maxRetries, counts: make(map[T]int), giveUp: giveUp,
	}
	m.drained = sync.NewCond(&m.mu)
	return m
}

// mayServe reports whether group g has a queued item that a getter may take now.
func (m *groupModel[T]) mayServe(g string) bool {
	return len(m.lists[g]) > 0 && (m.lifted || m.limit == 0 || m.out[g] < m.limit)
}

// join puts g at the back of the turns if it may be served and is not there.
func (m *groupModel[T]) join(g string) {
	if m.mayServe(g) && !slices.Contains(m.turns, g) {
		m.turns = append(m.turns, g)
	}
}

func (m *groupModel[T]) queued() int {
	n := 0
	for _, l := range m.lists {
		n += len(l)
	}
	return n
}

func (m *groupModel[T]) Add(item T) {
	mustHash("Add", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.debounce.Window > 0 && !m.shuttingDown && !m.dirty[item] {
		m.hold(item)
		return
	}
	m.add(item)
}

// add adds item at once, ending its hold: an AddAfter or AddRateLimited with no wait.
func (m *groupModel[T]) add(item T) {
	if m.shuttingDown {
		return
	}
	m.enqueue(item)
	m.unhold(item)
	m.handOut()
}

// hold holds item until its debounce window ends, with the lock held.
func (m *groupModel[T]) hold(item T) {
	now := time.Now()
	first, held := m.first[item]
	if !held {
		first = now
		m.first[item] = now
	}
	wait := m.debounce.Window
	if left := m.debounce.MaxWait - now.Sub(first); m.debounce.MaxWait > 0 && left < wait {
		wait = max(left, 0)
	}
	m.holds.set(item, now.Add(wait))
	m.setAlarm()
}

// unhold lets item's hold go, if it is held.
func (m *groupModel[T]) unhold(item T) {
	if m.holds.remove(item) {
		delete(m.first, item)
	}
}

// Superseded reports whether item is in processing and was added since: due again, or held.
func (m *groupModel[T]) Superseded(item T) bool {
	mustHash("Superseded", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	_, working := m.working[item]
	return working && (m.dirty[item] || m.holds.has(item))
}

// enqueue adds item without serving the getters, shutting down or not.
func (m *groupModel[T]) enqueue(item T) {
	if m.dirty[item] {
		return
	}
	m.dirty[item] = true
	if _, busy := m.working[item]; busy {
		return
	}
	g := m.groupOf(item)
	m.lists[g] = append(m.lists[g], item)
	m.join(g)
}

// handOut serves the getters in line, with the lock held.
func (m *groupModel[T]) handOut() {
	for len(m.getters) > 0 {
		var a groupAnswer[T]
		switch {
		case len(m.turns) > 0:
			g := m.turns[0]
			m.turns = m.turns[1:]
			if !m.mayServe(g) {
				panic("groupModel: a group in the turns cannot be served")
			}
			a.item = m.lists[g][0]
			m.lists[g] = m.lists[g][1:]
			delete(m.dirty, a.item)
			m.out[g]++
			m.working[a.item] = g
			m.join(g)
		case m.shuttingDown && m.queued() == 0:
			a.shutdown = true
		default:
			return
		}
		m.getters[0] <- a
		m.getters = m.getters[1:]
	}
}

func (m *groupModel[T]) Get() (item T, shutdown bool) {
	getter := make(chan groupAnswer[T], 1)
	m.mu.Lock()
	m.getters = append(m.getters, getter)
	m.handOut()
	m.mu.Unlock()
	a := <-getter
	return a.item, a.shutdown
}

func (m *groupModel[T]) Done(item T) {
	mustHash("Done", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.working[item]
	if !ok {
		return
	}
	delete(m.working, item)
	m.out[g]--
	if m.dirty[item] {
		m.lists[g] = append(m.lists[g], item)
	}
	m.join(g)
	m.drained.Broadcast()
	m.handOut()
}

func (m *groupModel[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.queued()
}

func (m *groupModel[T]) ShuttingDown() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.shuttingDown
}

// shutDown begins the shutdown with the lock held: delayed items are dropped, the limit is
// lifted, and the getters are served.
func (m *groupModel[T]) shutDown() {
	m.shuttingDown = true
	m.waiting.clear()
	if !m.lifted {
		m.lifted = true
		var held []string
		for g := range m.lists {
			if len(m.lists[g]) > 0 && !slices.Contains(m.turns, g) {
				held = append(held, g)
			}
		}
		slices.Sort(held)
		m.turns = append(m.turns, held...)
	}
	m.holds.clear()
	clear(m.first)
	m.setAlarm()
	m.handOut()
}

func (m *groupModel[T]) ShutDown() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutDown()
	m.drain = false
	m.drained.Broadcast()
}

func (m *groupModel[T]) ShutDownWithDrain() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutDown()
	m.drain = true
	for len(m.working) > 0 && m.drain {
		m.drained.Wait()
	}
}

func (m *groupModel[T]) AddAfter(item T, delay time.Duration) {
	mustHash("AddAfter", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.addAfter(item, delay)
}

func (m *groupModel[T]) addAfter(item T, delay time.Duration) {
	switch {
	case m.shuttingDown:
	case delay <= 0:
		m.add(item)
	default:
		m.waiting.schedule(item, time.Now().Add(delay))
		m.setAlarm()
	}
}

func (m *groupModel[T]) setAlarm() {
	if m.alarm != nil {
		m.alarm.Stop()
		m.alarm = nil
	}
	w := m.waiting.next()
	if h := m.holds.next(); h != nil && (w == nil || h.at.Before(w.at)) {
		w = h
	}
	if w != nil {
		m.alarm = time.AfterFunc(time.Until(w.at), m.release)
	}
}

// release adds the delayed items that are due, each as though added then, all of them before
// a getter is served: the queue adds the items due at one instant in one command, and the turns
// of a getter waiting then are those after the last of them (a group whose due item a getter
// took at once would otherwise leave the turns and rejoin behind a group due after it).
func (m *groupModel[T]) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for {
		w, h := m.waiting.next(), m.holds.next()
		delayed := w != nil && !w.at.After(now)
		if h != nil && !h.at.After(now) && (!delayed || h.at.Before(w.at)) {
			item, _ := m.holds.pop(now)
			delete(m.first, item)
			m.enqueue(item)
			continue
		}
		if !delayed {
			break
		}
		item, _ := m.waiting.pop(now)
		m.enqueue(item)
		m.unhold(item)
	}
	m.handOut()
	m.setAlarm()
}

func (m *groupModel[T]) AddRateLimited(item T) {
	mustHash("AddRateLimited", item)
	m.mu.Lock()
	n := m.counts[item] + 1
	if m.maxRetries > 0 && n > m.maxRetries {
		delete(m.counts, item)
		m.mu.Unlock()
		m.limited.Forget(item)
		if m.giveUp != nil {
			m.giveUp(item, n)
		}
		return
	}
	if m.maxRetries > 0 {
		m.counts[item] = n
	}
	defer m.mu.Unlock()
	m.addAfter(item, m.when(item, time.Now()))
}

func (m *groupModel[T]) Forget(item T) {
	m.limited.Forget(item)
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.counts, item)
}
