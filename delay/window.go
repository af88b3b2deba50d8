package delay

import (
	"time"

	"github.com/actorqueue/workqueue/internal/table"
)

// Debounce is the rule of a debounce window: an item added is held until it has gone
// Window without another add, or until MaxWait has passed since the first add it is held
// for, whichever comes first; each add while it is held starts its Window again. A zero
// Window holds nothing; a zero MaxWait sets no bound. Both queue cores keep it: a FIFO queue
// with a [Window], a priority queue on its waiting entries.
type Debounce struct {
	Window, MaxWait time.Duration
}

// On reports whether d holds items at all.
func (d Debounce) On() bool { return d.Window > 0 }

// Wait returns how long an item is held from an add, given how long it has been held since its
// first add (zero for that first add): Window, cut short by MaxWait.
func (d Debounce) Wait(held time.Duration) time.Duration {
	if d.MaxWait > 0 && d.MaxWait-held < d.Window {
		return max(d.MaxWait-held, 0)
	}
	return d.Window
}

// Window holds items for a [Debounce]: each until the instant its rule says, which every add
// restarts. An instant is a time.Duration since the caller's origin, as in [Heap]. Items due at
// the same instant come out in the order of their instants as last set, then as [Heap] gives
// them.
//
// The zero value holds nothing and must not be used: create one with [NewWindow]. It is not
// safe for concurrent use.
type Window[T comparable] struct {
	rule  Debounce
	due   Heap[T]
	first table.Map[T, time.Duration] // when each held item was first added
}

// NewWindow returns an empty window with the rule d. It panics if d.Window is not positive,
// or d.MaxWait is negative or below d.Window without being zero.
func NewWindow[T comparable](d Debounce) *Window[T] {
	if d.Window <= 0 || d.MaxWait < 0 || d.MaxWait > 0 && d.MaxWait < d.Window {
		panic("workqueue: a debounce window must be positive, with a maximum wait of zero or at least the window")
	}
	return &Window[T]{rule: d}
}

// Hold holds item, added at the instant now, until its rule says, and reports whether it was
// held already: the add then only restarts its window, within the maximum wait of its first.
func (w *Window[T]) Hold(item T, now time.Duration) (restarted bool) {
	first, held := w.first.Get(item)
	if !held {
		first = now
		w.first.Put(item, now)
	}
	w.due.Set(item, now+w.rule.Wait(now-first))
	return held
}

// Clear lets go of every held item, without releasing any, and of the window's memory.
func (w *Window[T]) Clear() { *w = Window[T]{rule: w.rule} }

// Has reports whether item is held.
func (w *Window[T]) Has(item T) bool { return w.first.Has(item) }

// Drop lets go of item without releasing it, and reports whether it was held: an add that made
// it ready by another way covers the adds it was held for.
func (w *Window[T]) Drop(item T) bool {
	if !w.due.Remove(item) {
		return false
	}
	w.first.Delete(item)
	return true
}

// Next returns the instant the earliest held item is released, and false when none is held.
func (w *Window[T]) Next() (time.Duration, bool) { return w.due.Next() }

// PopDue releases and returns the earliest held item if its instant is not after now. Call it
// until ok is false to release everything due.
func (w *Window[T]) PopDue(now time.Duration) (item T, ok bool) {
	if item, ok = w.due.PopDue(now); ok {
		w.first.Delete(item)
	}
	return item, ok
}

// Len returns the number of held items.
func (w *Window[T]) Len() int { return w.due.Len() }
