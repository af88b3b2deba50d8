package priority

import (
	"time"

	"github.com/actorqueue/workqueue/delay"
)

// bounce is what an entry waiting out a debounce window keeps: when its window began, and the
// instant a delayed add asked for, which the window never moves later.
type bounce struct {
	first   time.Time // the first add of the window
	delayed time.Time // zero: no delayed add waits
}

// Debounce sets the rule of Hold (see package delay); set it before the first Add.
func (s *State[T]) Debounce(d delay.Debounce) { s.debounce = d }

// Hold adds item with priority at the instant now, held until its adds stop for the debounce
// window (or its maximum wait has passed since the first add it is held for): a debounced plain
// add. An item already ready merges with it as Add does, its priority raised if lower. A waiting
// item waits for the earlier of its instant and the window's end; an item waiting out a window
// already starts it again (Added.Absorbed). An item handed out gets an entry that waits out the
// window, and is superseded from then on. Without a window, Hold is Add.
func (s *State[T]) Hold(item T, priority int, now time.Time) Added {
	e, ok := s.entries[item]
	if !s.debounce.On() || ok && e.readyAt.IsZero() {
		return s.Add(item, priority, time.Time{})
	}
	if !ok {
		// A new entry, waiting until the window ends; Add makes it, its group asked first.
		a := s.Add(item, priority, now.Add(s.debounce.Window))
		e = s.entries[item]
		e.bounce = &bounce{first: now}
		s.holding++
		s.heldBack(item)
		return a
	}
	a := Added{Priority: max(priority, e.priority)}
	if priority > e.priority {
		e.priority, e.order = priority, s.next()
	}
	if e.bounce == nil {
		e.bounce = &bounce{first: now, delayed: e.readyAt}
		s.holding++
	} else {
		a.Absorbed = true
	}
	e.readyAt = now.Add(s.debounce.Wait(now.Sub(e.bounce.first)))
	if d := e.bounce.delayed; !d.IsZero() && d.Before(e.readyAt) {
		e.readyAt = d
	}
	s.waiting.fix(e.pos)
	s.heldBack(item)
	return a
}

// Debouncing returns the number of items waiting out a debounce window.
func (s *State[T]) Debouncing() int { return s.holding }

// unbounce ends the debounce window of e, which leaves the waiting entries.
func (s *State[T]) unbounce(e *entry[T]) {
	if e.bounce != nil {
		e.bounce = nil
		s.holding--
	}
}

// heldBack records that item, if handed out, is superseded by an entry that waits out a window.
func (s *State[T]) heldBack(item T) {
	if _, handedOut := s.locked[item]; handedOut {
		s.superseded.Add(item)
	}
}

// Superseded reports whether item is handed out and was added again since: its entry is ready
// (it is handed out again after Done) or waits out a debounce window. An entry delayed by
// AddAfter or a rate limiter supersedes it once it falls due. False for an item not handed out.
func (s *State[T]) Superseded(item T) bool {
	if _, handedOut := s.locked[item]; !handedOut {
		return false
	}
	e, ok := s.entries[item]
	return ok && (e.readyAt.IsZero() || e.bounce != nil)
}

// TrackSuperseded makes the state keep the set of superseded items (see SupersededSet), from
// the items handed out now.
func (s *State[T]) TrackSuperseded() {
	s.superseded.Track(func(yield func(T) bool) {
		for item := range s.locked {
			if s.Superseded(item) && !yield(item) {
				return
			}
		}
	})
}

// SupersededSet returns a copy of the set of superseded items, and true, if it changed since the
// last call; nil and false otherwise. It needs TrackSuperseded.
func (s *State[T]) SupersededSet() (map[T]struct{}, bool) { return s.superseded.Take() }
