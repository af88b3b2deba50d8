package queue

import "time"

// entry returns the ticket in item's entry of the waiting map, made if there was none, and
// whether item waits in the FIFO. The pointer is good until the next change to the map.
func (s *State[T]) entry(item T) (ticket *uint32, waits bool) {
	if s.waiting.Full() {
		s.makeRoom()
	}
	ticket, found := s.waiting.Ref(item)
	return ticket, found && s.live(*ticket)
}

// makeRoom lets the stale entries of the full waiting map go. When at least a quarter of its
// entries are stale, a sweep in place frees their slots. Otherwise the map grows, leaving them
// behind in the same pass: a sweep in place would free only a few slots, and a backlog that
// grows faster than it is taken would sweep the whole map again every few adds.
func (s *State[T]) makeRoom() {
	entries := s.waiting.Len()
	if stale := entries - s.Len(); 4*stale >= entries {
		s.waiting.DeleteFunc(s.isStale)
	} else {
		s.waiting.GrowFunc(s.isStale)
	}
}

// push pushes item, added at the instant at, into the FIFO and writes its ticket where entry
// said.
func (s *State[T]) push(item T, ticket *uint32, at time.Time) {
	s.pushed++
	*ticket = s.pushed
	s.storage.Push(item)
	if s.instants {
		s.addedAt.Push(time.Duration(s.rel(at)))
	}
}

// live reports whether the item of ticket waits in the FIFO: it has not been taken. Tickets
// count modulo 2³², so a stale ticket must not fall 2³¹ takes behind (see letGo).
func (s *State[T]) live(ticket uint32) bool { return int32(ticket-s.taken) > 0 }

// isStale reports whether an entry of the waiting map is stale, for a sweep.
func (s *State[T]) isStale(_ T, ticket uint32) bool { return !s.live(ticket) }

// letGo sweeps the stale entries of the waiting map after a take from the FIFO, once the items
// still waiting fill at most 1/32 of the map, so that a drained backlog gives its memory back
// (the map then shrinks), and every 2³⁰ takes, so that no stale ticket falls 2³¹ behind and
// looks live again.
func (s *State[T]) letGo() {
	if 32*s.Len() < s.waiting.Size() || s.taken%(1<<30) == 0 {
		s.waiting.DeleteFunc(s.isStale)
	}
}

// Outgrown reports whether the waiting items have outgrown the cache, so that reading ahead
// with [State.Prefetch] pays.
func (s *State[T]) Outgrown() bool { return s.waiting.Outgrown() }

// Prefetch reads ahead the memory that adding items will touch, once the waiting items have
// outgrown the cache (see [table.Map.Prefetch]): call it with the items of a run of adds
// before making them.
func (s *State[T]) Prefetch(items []T) { s.waiting.Prefetch(items) }
