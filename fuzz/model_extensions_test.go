package fuzz

import (
	"context"
	"time"

	"github.com/actorqueue/workqueue"
)

// The library's extensions (workqueue.TypedExtensions), as the model has them.

var _ workqueue.TypedExtensions[int] = (*model[int])(nil)

func (m *model[T]) AddBatch(items ...T) {
	for _, item := range items {
		mustHash("AddBatch", item)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, item := range items {
		m.add(item)
	}
}

func (m *model[T]) GetWithContext(ctx context.Context) (item T, shutdown bool, err error) {
	if err := ctx.Err(); err != nil {
		return item, false, err
	}
	return m.get(ctx)
}

// ShutDownWithDrainContext is ShutDownWithDrain that, when ctx ends first, ends every drain as
// ShutDown does and returns the items in processing with ctx.Err().
func (m *model[T]) ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error) {
	stop := context.AfterFunc(ctx, m.wake)
	defer stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutDown()
	m.drain = true
	for len(m.processing) > 0 && m.drain && ctx.Err() == nil {
		m.changed.Wait()
	}
	if len(m.processing) == 0 || !m.drain {
		return nil, nil
	}
	for item := range m.processing {
		inFlight = append(inFlight, item)
	}
	m.drain = false
	m.changed.Broadcast()
	return inFlight, ctx.Err()
}

// Superseded reports whether item is in processing and was added again since it was handed
// out: in client-go's terms, dirty while processing. (This model has no debounce window; see
// groupModel.)
func (m *model[T]) Superseded(item T) bool {
	mustHash("Superseded", item)
	m.mu.Lock()
	defer m.mu.Unlock()
	_, processing := m.processing[item]
	return processing && m.dirty[item]
}

// Snapshot returns the model's counts. Its OldestInFlight is the least the queue may answer:
// see inFlightBounds.
func (m *model[T]) Snapshot() workqueue.Snapshot {
	s, _ := m.snapshotBounds()
	return s
}

// snapshotBounds returns Snapshot and the most the queue may answer for OldestInFlight.
func (m *model[T]) snapshotBounds() (s workqueue.Snapshot, most time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s = workqueue.Snapshot{
		Queued:       len(m.fifo),
		Processing:   len(m.processing),
		Delayed:      len(m.waiting.entries),
		ShuttingDown: m.shuttingDown,
	}
	for item := range m.processing {
		if m.dirty[item] {
			s.Dirty++
		}
	}
	s.OldestInFlight, most = m.inFlightBounds()
	return s, most
}

// inFlightBounds returns, with the lock held, the least and the most the queue's Snapshot may
// answer for OldestInFlight now. The queue measures an item's processing from when it
// reserved the item for a getter: at the earliest when the item joined the FIFO, at the latest
// when a getter took it; the two are the same when a getter was waiting, and for a queue that
// asks (see subject.asks).
func (m *model[T]) inFlightBounds() (least, most time.Duration) {
	for _, f := range m.processing {
		least = max(least, time.Since(f.takenAt))
		most = max(most, time.Since(f.queuedAt))
	}
	if m.asks {
		most = least
	}
	return least, most
}
