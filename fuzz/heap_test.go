package fuzz

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/delay"
)

// FuzzDelayHeap schedules items (new ones, and again earlier and later), pops them at chosen
// instants, clears the heap, and compares every answer with two references: a sorted slice,
// which checks the order by instant, one entry per item and that the earliest instant wins,
// and a container/heap driven by the same calls, which checks the order of ties the heap
// promises.
func FuzzDelayHeap(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &input{data: data}
		var h delay.Heap[int]
		var sorted sortedEntries
		var ties waitHeap[int]
		// The heap's instants are durations since an origin; the references count from t0.
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		instant := func() time.Duration {
			if in.pick(8) == 0 {
				return choose(in, math.MinInt64, -time.Hour, 100*365*24*time.Hour, math.MaxInt64)
			}
			return time.Duration(in.pick(16)) * time.Second
		}
		for calls := 0; calls < 1000 && !in.done(); calls++ {
			switch in.pick(8) {
			case 0, 1, 2, 3:
				item, at := in.pick(12), instant()
				got, want := h.Schedule(item, at), sorted.schedule(item, t0.Add(at))
				ties.schedule(item, t0.Add(at))
				if got != want {
					t.Fatalf("call %d: Schedule(%d, %v) = %v, want %v", calls, item, at, got, want)
				}
			case 4, 5, 6:
				now := instant()
				for {
					item, ok := h.PopDue(now)
					want, wantOK := ties.pop(t0.Add(now))
					if ok != wantOK || item != want {
						t.Fatalf("call %d: PopDue(%v) = %d, %v; container/heap pops %d, %v", calls, now, item, ok, want, wantOK)
					}
					if !ok {
						break
					}
					if at, due := sorted.remove(item); !due || at.After(t0.Add(now)) || at.After(sorted.earliest(at)) {
						t.Fatalf("call %d: PopDue(%v) = %d, due at %v; the earliest waits until %v", calls, now, item, at, sorted.earliest(at))
					}
					if in.pick(2) == 0 {
						break // leave the rest for later
					}
				}
			case 7:
				h.Clear()
				sorted = nil
				ties.clear()
			}
			next, ok := h.Next()
			if len(sorted) == 0 {
				if ok || h.Len() != 0 {
					t.Fatalf("call %d: empty, but Next = %v, %v and Len = %d", calls, next, ok, h.Len())
				}
				continue
			}
			if !ok || !t0.Add(next).Equal(sorted[0].at) || h.Len() != len(sorted) {
				t.Fatalf("call %d: Next = %v, %v and Len = %d, want %v and %d", calls, next, ok, h.Len(), sorted[0].at, len(sorted))
			}
		}
	})
}

// entry is an item and the instant it is due.
type entry struct {
	item int
	at   time.Time
}

// sortedEntries holds one entry per item, sorted by instant.
type sortedEntries []entry

// schedule adds item at at, or moves it there if it waits for later; it reports whether it
// did either.
func (s *sortedEntries) schedule(item int, at time.Time) bool {
	if i := slices.IndexFunc(*s, func(e entry) bool { return e.item == item }); i >= 0 {
		if !at.Before((*s)[i].at) {
			return false
		}
		*s = slices.Delete(*s, i, i+1)
	}
	i, _ := slices.BinarySearchFunc(*s, at, func(e entry, at time.Time) int { return e.at.Compare(at) })
	*s = slices.Insert(*s, i, entry{item, at})
	return true
}

// remove removes item and returns its instant; due is false if item was not there.
func (s *sortedEntries) remove(item int) (at time.Time, due bool) {
	i := slices.IndexFunc(*s, func(e entry) bool { return e.item == item })
	if i < 0 {
		return at, false
	}
	at = (*s)[i].at
	*s = slices.Delete(*s, i, i+1)
	return at, true
}

// earliest returns the earliest instant among the entries and at.
func (s sortedEntries) earliest(at time.Time) time.Time {
	if len(s) > 0 && s[0].at.Before(at) {
		return s[0].at
	}
	return at
}
