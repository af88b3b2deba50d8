package queue

// Superseded reports whether item is being processed and was added again since it was handed
// out: it is due to be handed out again after its Done, or an add of it waits out a debounce
// window (see [State.Hold]). It is false for an item not in processing.
func (s *State[T]) Superseded(item T) bool {
	f, ok := s.processing[item]
	return ok && (f.again || f.held)
}

// Hold records that an add of item waits out a debounce window, and reports whether item is
// being processed: it is then superseded, though not yet due again.
func (s *State[T]) Hold(item T) bool {
	f, ok := s.processing[item]
	if !ok {
		return false
	}
	if !f.held {
		f.held = true
		s.processing[item] = f
		if !f.again {
			s.superseded.Add(item)
		}
	}
	return true
}

// Unhold forgets that adds of items in processing wait out a debounce window: the window let
// them go (a queue shutting down drops them). Those items are no longer superseded, unless they
// are due again.
func (s *State[T]) Unhold() {
	for item, f := range s.processing {
		if f.held {
			f.held = false
			s.processing[item] = f
			if !f.again {
				s.superseded.Remove(item)
			}
		}
	}
}

// TrackSuperseded makes the state keep the set of superseded items (see SupersededSet), from
// the items in processing now.
func (s *State[T]) TrackSuperseded() {
	s.superseded.Track(func(yield func(T) bool) {
		for item, f := range s.processing {
			if (f.again || f.held) && !yield(item) {
				return
			}
		}
	})
}

// SupersededSet returns a copy of the set of superseded items, and true, if it changed since the
// last call; nil and false otherwise. It needs TrackSuperseded.
func (s *State[T]) SupersededSet() (map[T]struct{}, bool) { return s.superseded.Take() }
