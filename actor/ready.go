package actor

import "sync/atomic"

// refill puts reserved items on their way to getters: as many as ready holds when reading
// ahead, otherwise one per waiting getter.
//
// Takes tell the owner nothing, so an owner asleep with ready full and more items waiting would
// not know when getters have emptied it. Reading ahead, refill therefore says in overflow
// whether items wait that ready had no room for, and the getter whose take empties ready nudges
// the owner into a turn, which refills it (see Queue.take). Neither may miss the other: the
// owner writes overflow and then reads the watermark of takes; a getter raises the watermark and
// then reads overflow. All four are atomic operations, which Go's memory model orders in one
// sequence, so if the getter's read misses the owner's write, the owner's read comes after the
// getter's raise: the room it computes (see room) counts that take, and the turn refills what it
// emptied. overflow is raised only when the items waiting may not fit even in that room.
func (m *fifo[T]) refill() {
	if !m.readAhead {
		for !m.shuttingDown && m.wanted > 0 && len(m.ready) < cap(m.ready) {
			h, ok := m.reserve()
			if !ok {
				break
			}
			m.ready <- h
			m.wanted--
		}
		return
	}
	if m.shuttingDown {
		setIfChanged(m.overflow, false)
		return
	}
	if m.unreserved() > m.room() {
		setIfChanged(m.overflow, true)
	}
	for n := min(m.room(), m.unreserved()); n > 0; n-- {
		h, ok := m.reserve()
		if !ok {
			break
		}
		m.ready <- h
	}
	setIfChanged(m.overflow, m.unreserved() > 0)
}

// unreserved returns how many items wait that no reservation holds.
func (m *fifo[T]) unreserved() int { return m.state.Len() - m.state.Reservations() }

// room returns how many more items ready has room for, at least, when reading ahead: every
// reservation went to ready, and every one up to the watermark has left it (getters receive
// them in order), so at most the reservations after the watermark are still there.
func (m *fifo[T]) room() int {
	return cap(m.ready) - int(m.state.LastReservation()-m.taken.Load())
}

// setIfChanged stores v in b unless b holds it already: getters read overflow, so the owner
// writes it only when it changes, and not at all while its queue keeps no more than ready
// holds.
func setIfChanged(b *atomic.Bool, v bool) {
	if b.Load() != v {
		b.Store(v)
	}
}

// reserve reserves the next item; a panic from the storage becomes a handoff carrying it, for
// the getter it was popping for. (The built-in FIFO, read ahead, runs no foreign code.)
func (m *fifo[T]) reserve() (h handoff[T], ok bool) {
	defer func() {
		if p := recover(); p != nil {
			h, ok = handoff[T]{fault: p}, true
		}
	}()
	item, seq, ok := m.state.Reserve(m.now())
	return handoff[T]{item: item, seq: seq}, ok
}
