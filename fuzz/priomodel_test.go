package fuzz

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/actorqueue/workqueue"
)

// prioModel is the reference priority queue: prioRef behind one mutex, on the bubble's clock,
// with controller-runtime's rules and the library's additions to them. Getters wait in line
// and each receives the best item that can be handed out, or shutdown, on a channel of its
// own, as controller-runtime hands items over an unbuffered channel to its waiting getters. A
// timer makes waiting items ready when they fall due.
//
// After shutdown, as in controller-runtime, nothing is handed out, nothing is added and nothing
// becomes ready any more, drain or not; Done, Len, Forget and NumRequeues go on. What the
// library adds: ShutDownWithDrain waits until nothing is handed out, or until a ShutDown
// (controller-runtime's only shuts down), and the extensions.
//
// Create it with newPrioModel. Its methods are safe for simultaneous use.
type prioModel[T comparable] struct {
	mu           sync.Mutex
	ref          *prioRef[T]
	getters      []chan prioAnswer[T] // the getters waiting, oldest first; each buffered 1
	shuttingDown bool
	drain        bool       // a drain waits, and no ShutDown has ended it
	drained      *sync.Cond // broadcast when a drain may end
	alarm        *time.Timer
	*limited[T]
	// MaxRetries and GiveUp (see the package documentation, "Retries"): rate-limited adds
	// since the last Forget or give-up, by item. maxRetries 0: no maximum.
	maxRetries int
	counts     map[T]int
	giveUp     func(T, int)
	gaveUp     []prioGaveUp[T] // given up on by the add under way
}

// prioAnswer is what a getter receives.
type prioAnswer[T any] struct {
	item     T
	priority int
	shutdown bool
}

var (
	_ workqueue.TypedPriorityInterface[int] = (*prioModel[int])(nil)
	_ workqueue.TypedExtensions[int]        = (*prioModel[int])(nil)
)

// newPrioModel returns an empty model whose rate-limited adds ask limiter.
func newPrioModel[T comparable](limiter reference[T]) *prioModel[T] {
	m := &prioModel[T]{ref: newPrioRef[T](), limited: &limited[T]{limiter: limiter}}
	m.drained = sync.NewCond(&m.mu)
	return m
}

func (m *prioModel[T]) AddWithOpts(o workqueue.AddOpts, items ...T) { m.addWith(o, false, items) }

// addWith is AddWithOpts; timed marks AddAfter's adds, which a debounce window does not hold.
func (m *prioModel[T]) addWith(o workqueue.AddOpts, timed bool, items []T) {
	for _, item := range items {
		mustHash("AddWithOpts", item)
	}
	if m.maxRetries > 0 && o.RateLimited {
		items = m.count(items)
		defer m.giveUpOn()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shuttingDown {
		return
	}
	priority := 0
	if o.Priority != nil {
		priority = *o.Priority
	}
	now := time.Now()
	for _, item := range items {
		if !o.RateLimited && o.After <= 0 && !timed {
			m.ref.hold(item, priority, now)
			continue
		}
		after := o.After
		if o.RateLimited {
			if wait := m.when(item, now); after == 0 || wait < after {
				after = wait
			}
		}
		m.ref.add(item, priority, after > 0, now.Add(after))
	}
	m.setAlarm()
	m.handOut()
}

// count counts a rate-limited add of each of items, in order, even after shutdown, and
// returns those that may be added; the others are given up on by giveUpOn.
func (m *prioModel[T]) count(items []T) (keep []T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, item := range items {
		n := m.counts[item] + 1
		if n <= m.maxRetries {
			m.counts[item] = n
			keep = append(keep, item)
			continue
		}
		delete(m.counts, item)
		m.gaveUp = append(m.gaveUp, prioGaveUp[T]{item, n})
	}
	return keep
}

// prioGaveUp is an item given up on, with its attempts.
type prioGaveUp[T any] struct {
	item     T
	attempts int
}

// giveUpOn forgets the items given up on, then tells giveUp, once the others are added.
func (m *prioModel[T]) giveUpOn() {
	m.mu.Lock()
	gaveUp := m.gaveUp
	m.gaveUp = nil
	m.mu.Unlock()
	for _, g := range gaveUp {
		m.limited.Forget(g.item)
		if m.giveUp != nil {
			m.giveUp(g.item, g.attempts)
		}
	}
}

func (m *prioModel[T]) Forget(item T) {
	m.limited.Forget(item)
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.counts, item)
}

func (m *prioModel[T]) Add(item T) { m.AddWithOpts(workqueue.AddOpts{}, item) }

func (m *prioModel[T]) AddBatch(items ...T) { m.AddWithOpts(workqueue.AddOpts{}, items...) }

func (m *prioModel[T]) AddAfter(item T, after time.Duration) {
	m.addWith(workqueue.AddOpts{After: after}, true, []T{item})
}

// Superseded reports whether item is handed out and its record is ready or waits out a window.
func (m *prioModel[T]) Superseded(item T) bool {
	mustHash("Superseded", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ref.superseded(item)
}

func (m *prioModel[T]) AddRateLimited(item T) {
	m.AddWithOpts(workqueue.AddOpts{RateLimited: true}, item)
}

// setAlarm arms the alarm for the earliest waiting item, with the lock held, or stops it when
// none waits or the queue is shutting down: waiting items then stay waiting, as in
// controller-runtime, whose waiting loop ends with the shutdown.
func (m *prioModel[T]) setAlarm() {
	if m.alarm != nil {
		m.alarm.Stop()
		m.alarm = nil
	}
	if at, ok := m.ref.nextDue(); ok && !m.shuttingDown {
		m.alarm = time.AfterFunc(time.Until(at), m.promote)
	}
}

// promote makes the waiting items that are due ready.
func (m *prioModel[T]) promote() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shuttingDown {
		return // the alarm fired as the shutdown began
	}
	for _, rec := range m.ref.due(time.Now()) {
		m.ref.promote(rec)
	}
	m.setAlarm()
	m.handOut()
}

// handOut gives the getters that wait, oldest first, the best items that can be handed out,
// with the lock held.
func (m *prioModel[T]) handOut() {
	for len(m.getters) > 0 {
		item, priority, ok := m.ref.handOut(time.Now())
		if !ok {
			return
		}
		m.getters[0] <- prioAnswer[T]{item: item, priority: priority}
		m.getters = m.getters[1:]
	}
}

// wait puts a getter in line and returns its channel, or nil once shutting down.
func (m *prioModel[T]) wait() chan prioAnswer[T] {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shuttingDown {
		return nil
	}
	getter := make(chan prioAnswer[T], 1)
	m.getters = append(m.getters, getter)
	m.handOut()
	return getter
}

func (m *prioModel[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	getter := m.wait()
	if getter == nil {
		return item, 0, true
	}
	a := <-getter
	return a.item, a.priority, a.shutdown
}

func (m *prioModel[T]) Get() (item T, shutdown bool) {
	item, _, shutdown = m.GetWithPriority()
	return item, shutdown
}

// GetWithContext is Get that leaves the line when ctx ends first, returning ctx.Err().
func (m *prioModel[T]) GetWithContext(ctx context.Context) (item T, shutdown bool, err error) {
	if err := ctx.Err(); err != nil {
		return item, false, err
	}
	getter := m.wait()
	if getter == nil {
		return item, true, nil
	}
	select {
	case a := <-getter:
		return a.item, a.shutdown, nil
	case <-ctx.Done():
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := slices.Index(m.getters, getter); i >= 0 {
		m.getters = slices.Delete(m.getters, i, i+1)
		return item, false, ctx.Err()
	}
	a := <-getter // answered as ctx ended
	return a.item, a.shutdown, nil
}

func (m *prioModel[T]) Done(item T) {
	mustHash("Done", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ref.done(item) && len(m.ref.locked) == 0 {
		m.drained.Broadcast()
	}
	m.handOut()
}

func (m *prioModel[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	ready, _, _, _ := m.ref.counts()
	return ready
}

func (m *prioModel[T]) ShuttingDown() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.shuttingDown
}

// shutDown begins the shutdown, with the lock held: the getters that wait receive shutdown,
// and the alarm stops.
func (m *prioModel[T]) shutDown() {
	m.shuttingDown = true
	for _, getter := range m.getters {
		getter <- prioAnswer[T]{shutdown: true}
	}
	m.getters = nil
	m.setAlarm()
}

func (m *prioModel[T]) ShutDown() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutDown()
	m.drain = false
	m.drained.Broadcast()
}

func (m *prioModel[T]) ShutDownWithDrain() {
	_, _ = m.ShutDownWithDrainContext(context.Background())
}

// ShutDownWithDrainContext is ShutDownWithDrain that, when ctx ends first, ends every drain as
// ShutDown does and returns the items handed out with ctx.Err().
func (m *prioModel[T]) ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error) {
	stop := context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.drained.Broadcast()
	})
	defer stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutDown()
	m.drain = true
	for len(m.ref.locked) > 0 && m.drain && ctx.Err() == nil {
		m.drained.Wait()
	}
	if len(m.ref.locked) == 0 || !m.drain {
		return nil, nil
	}
	for item := range m.ref.locked {
		inFlight = append(inFlight, item)
	}
	m.drain = false
	m.drained.Broadcast()
	return inFlight, ctx.Err()
}

func (m *prioModel[T]) Snapshot() workqueue.Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	var s workqueue.Snapshot
	s.Queued, s.Delayed, s.Processing, s.Dirty = m.ref.counts()
	s.Debouncing = m.ref.debouncing()
	s.Delayed -= s.Debouncing
	if since, ok := m.ref.oldestSince(); ok {
		s.OldestInFlight = time.Since(since)
	}
	s.ShuttingDown = m.shuttingDown
	return s
}

// snapshotBounds is Snapshot, whose OldestInFlight the queue must match exactly: it hands an
// item out when a getter takes it.
func (m *prioModel[T]) snapshotBounds() (workqueue.Snapshot, time.Duration) {
	s := m.Snapshot()
	return s, s.OldestInFlight
}
