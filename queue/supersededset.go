package queue

import "maps"

// SupersededSet is the set of superseded items a core keeps for a shell that publishes them
// (see Machine.SupersededSet): nothing until Track, so that a queue nobody asks pays nothing.
// Both cores keep theirs in one. Its zero value keeps nothing.
type SupersededSet[T comparable] struct {
	set     map[T]struct{} // nil until Track
	changed bool           // set changed since Take last returned it
}

// Track starts keeping the set, from the items superseded now; later calls do nothing.
func (s *SupersededSet[T]) Track(now func(yield func(T) bool)) {
	if s.set != nil {
		return
	}
	s.set, s.changed = make(map[T]struct{}), true
	for item := range now {
		s.set[item] = struct{}{}
	}
}

// Add notes item superseded, if the set is kept.
func (s *SupersededSet[T]) Add(item T) {
	if s.set == nil {
		return
	}
	if _, ok := s.set[item]; !ok {
		s.set[item] = struct{}{}
		s.changed = true
	}
}

// Remove notes item no longer superseded, if the set is kept.
func (s *SupersededSet[T]) Remove(item T) {
	if _, ok := s.set[item]; ok {
		delete(s.set, item)
		s.changed = true
	}
}

// Take returns a copy of the set, and true, if it changed since the last call; nil and false
// otherwise.
func (s *SupersededSet[T]) Take() (map[T]struct{}, bool) {
	if !s.changed {
		return nil, false
	}
	s.changed = false
	return maps.Clone(s.set), true
}
