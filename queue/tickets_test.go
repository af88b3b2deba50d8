package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// handOut reserves and takes the next item, and reports whether there was one.
func handOut(s *State[int]) (int, bool) {
	item, seq, ok := s.Reserve(t0)
	if ok {
		s.TakeNext(seq)
	}
	return item, ok
}

// Taking an item leaves its entry in the waiting map, stale; the stale entries go in bulk, so
// the map stays the size of what waits: empty once nothing does, at most 32 slots an item
// waiting while a backlog drains, and a few slots an item under a steady churn of new keys.
func TestStaleEntriesGoInBulk(t *testing.T) {
	s := New[int](nil)
	for i := range 100_000 {
		s.Add(i)
	}
	for s.Len() > 100 {
		item, _ := handOut(s)
		s.Done(item)
		if size := s.waiting.Size(); size > 32*s.Len() && size > 8 {
			t.Fatalf("%d items waiting in a map of %d slots", s.Len(), size)
		}
	}
	for s.Len() > 0 {
		item, _ := handOut(s)
		s.Done(item)
	}
	if s.waiting.Len() != 0 || s.waiting.Size() != 8 {
		t.Errorf("drained: %d entries in %d slots, want 0 in 8", s.waiting.Len(), s.waiting.Size())
	}

	for i := range 10 { // a steady backlog of 10, while 100,000 keys pass through
		s.Add(i)
	}
	for i := 10; i < 100_000; i++ {
		s.Add(i)
		item, _ := handOut(s)
		s.Done(item)
		if size := s.waiting.Size(); size > 64 {
			t.Fatalf("after %d keys, a backlog of %d in a map of %d slots", i, s.Len(), size)
		}
	}
}

// A full waiting map sweeps its stale entries in place when they are at least a quarter of it,
// and otherwise grows, leaving them behind as it does: a sweep that frees a few slots would
// only have to be made again a few adds later.
func TestAFullMapSweepsOrGrows(t *testing.T) {
	for _, c := range []struct {
		stale    int
		wantSize int
	}{
		{stale: 23, wantSize: 256}, // 23 stale of 96: grows
		{stale: 24, wantSize: 128}, // 24 stale of 96: sweeps in place
	} {
		s := New[int](nil)
		next := 0
		for ; s.waiting.Size() < 128 || !s.waiting.Full(); next++ {
			s.Add(next)
		}
		if s.waiting.Len() != 96 || s.waiting.Size() != 128 {
			t.Fatalf("full at %d entries in %d slots, want 96 in 128", s.waiting.Len(), s.waiting.Size())
		}
		for range c.stale {
			item, _ := handOut(s)
			s.Done(item)
		}
		s.Add(next)
		if got, want := s.waiting.Len(), 96-c.stale+1; got != want || s.waiting.Size() != c.wantSize {
			t.Errorf("%d stale: the next add left %d entries in %d slots, want %d in %d",
				c.stale, got, s.waiting.Size(), want, c.wantSize)
		}
		for i := range next + 1 {
			if waits := s.isWaiting(i); waits != (i >= c.stale) {
				t.Errorf("%d stale: item %d waits: %v", c.stale, i, waits)
			}
		}
	}
}

// An item taken is not waiting, though its entry stays: adding it again queues it, and Pending
// says so first.
func TestAStaleEntryDoesNotHoldAnAdd(t *testing.T) {
	run(t, New[string](nil), []step{
		{"add a", "true", 1, 0}, {"add b", "true", 2, 0},
		{"reserve", "a#1", 2, 0}, {"take 1", "[a]", 1, 1}, {"done a", "true", 1, 0},
		{"add a", "true", 2, 0}, {"add a", "false", 2, 0},
		{"reserve", "b#2", 2, 0}, {"reserve", "a#3", 2, 0}, {"take 3", "[b a]", 0, 2},
		{"add a", "true", 0, 2}, {"done a", "true", 1, 1}, {"add a", "false", 1, 1},
	})
}

// Tickets count modulo 2³²: a machine whose count wraps during a run answers every call as
// one that starts from zero.
func TestTicketsWrapAround(t *testing.T) {
	for seed := range uint64(20) {
		fresh, wrapping := New[int](nil), New[int](nil)
		wrapping.pushed, wrapping.taken = 1<<32-20, 1<<32-20 // no entries yet: any start will do
		for op := range 2000 {
			var got [2]string
			for i, s := range []*State[int]{fresh, wrapping} {
				r := rand.New(rand.NewPCG(seed, uint64(op))) // the same call on both
				switch k := r.IntN(12); r.IntN(3) {
				case 0:
					got[i] = fmt.Sprint(s.Add(k), s.Pending(k))
				case 1:
					item, ok := handOut(s)
					got[i] = fmt.Sprint(item, ok)
				case 2:
					got[i] = fmt.Sprint(s.Done(k))
				}
				got[i] += fmt.Sprint(" ", s.Len(), s.Processing())
			}
			if got[0] != got[1] {
				t.Fatalf("seed %d, op %d: counting from zero %q, wrapping %q", seed, op, got[0], got[1])
			}
		}
		if wrapping.taken > 1<<31 {
			t.Fatalf("seed %d: the count did not wrap (%d taken)", seed, wrapping.taken)
		}
	}
}

// A stale entry must not fall 2³¹ takes behind, or its ticket would look live again: every 2³⁰
// takes, the stale entries are swept, however few.
func TestStaleEntriesAreSweptEvery2To30Takes(t *testing.T) {
	s := New[int](nil)
	s.pushed, s.taken = 1<<30-10, 1<<30-10
	for i := range 11 {
		s.Add(i)
	}
	for range 9 {
		item, _ := handOut(s)
		s.Done(item)
	}
	if s.waiting.Len() != 11 {
		t.Fatalf("before the 2³⁰th take: %d entries, want all 11 (9 of them stale)", s.waiting.Len())
	}
	handOut(s) // the 2³⁰th
	if s.waiting.Len() != s.Len() {
		t.Errorf("after the 2³⁰th take: %d entries for %d items waiting", s.waiting.Len(), s.Len())
	}
}
