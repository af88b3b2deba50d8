package queue

import (
	"math"
	"time"
)

// TrackInstants makes the state keep the instant of each add and each start, for the metrics
// (see AddAt, Took and DoneAt); from then on every add must come with its instant. origin is
// any instant before the first.
func (s *State[T]) TrackInstants(origin time.Time) {
	s.instants = true
	s.rel(origin)
	if s.custom {
		s.addedBy = make(map[T]time.Time)
	}
}

// keepAdd keeps the add of item, stored in a custom storage or reserved from it, at at.
func (s *State[T]) keepAdd(item T, at time.Time) {
	if s.instants {
		s.addedBy[item] = at
	}
}

// Took records that the getter of item, in processing, took it at the instant at, and returns
// when the item was added; ok is false if the item is not in processing, or was taken already.
// It needs TrackInstants.
func (s *State[T]) Took(item T, at time.Time) (added time.Time, ok bool) {
	f, ok := s.processing[item]
	if !ok || f.started != none {
		return added, false
	}
	added, f.added, f.started = s.abs(f.added), none, s.rel(at)
	s.processing[item] = f
	return added, true
}

// Unfinished returns, at now, how long the items in processing have been since their getters
// took them, in seconds, in all and for the longest: client-go's unfinished-work gauges, summed
// as client-go sums them. Items whose getters have not said so yet (see Took) are left out.
func (s *State[T]) Unfinished(now time.Time) (total, longest float64) {
	for _, f := range s.processing {
		if f.started != none {
			age := now.Sub(s.abs(f.started)).Seconds()
			total += age
			longest = max(longest, age)
		}
	}
	return total, longest
}

// offset is an instant as the time since the state's origin, or none.
type offset int64

// none is the offset of no instant.
const none offset = math.MinInt64

// rel returns the offset of the instant t, none for the zero time. The first instant a state
// without an origin is given becomes its origin.
func (s *State[T]) rel(t time.Time) offset {
	if t.IsZero() {
		return none
	}
	if s.origin.IsZero() {
		s.origin = t
	}
	return offset(t.Sub(s.origin))
}

// abs returns the instant of the offset o, the zero time for none.
func (s *State[T]) abs(o offset) time.Time {
	if o == none {
		return time.Time{}
	}
	return s.origin.Add(time.Duration(o))
}
