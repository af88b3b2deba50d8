package delay

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"time"
)

// at is the instant ms milliseconds after the origin.
func at(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// popAll pops everything due at now.
func popAll(h *Heap[string], now time.Duration) []string {
	var out []string
	for item, ok := h.PopDue(now); ok; item, ok = h.PopDue(now) {
		out = append(out, item)
	}
	return out
}

func TestHeap(t *testing.T) {
	type step struct {
		schedule string // item to schedule at ms, or "" to pop what is due at ms
		ms       int
		want     string // for a schedule: whether it moved; for a pop: the items, in order
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"earliest first", []step{
			{"c", 30, "true"}, {"a", 10, "true"}, {"b", 20, "true"},
			{"", 9, "[]"}, {"", 10, "[a]"}, {"", 100, "[b c]"}, {"", 100, "[]"},
		}},
		{"re-schedule earlier moves, later does not", []step{
			{"a", 50, "true"}, {"b", 40, "true"},
			{"a", 70, "false"}, {"a", 50, "false"}, {"a", 30, "true"},
			{"", 35, "[a]"}, {"", 40, "[b]"},
		}},
		{"a popped item can come back", []step{
			{"a", 10, "true"}, {"", 10, "[a]"}, {"a", 20, "true"}, {"", 20, "[a]"},
		}},
		{"due is inclusive", []step{
			{"a", 10, "true"}, {"", 10, "[a]"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Heap[string]
			for i, s := range tt.steps {
				var got string
				if s.schedule != "" {
					got = sprint(h.Schedule(s.schedule, at(s.ms)))
				} else {
					got = sprint(popAll(&h, at(s.ms)))
				}
				if got != s.want {
					t.Errorf("step %d: got %s, want %s", i, got, s.want)
				}
			}
		})
	}
}

func TestHeapNextAndClear(t *testing.T) {
	var h Heap[string]
	if _, ok := h.Next(); ok {
		t.Fatal("empty heap has a next instant")
	}
	h.Schedule("a", at(20))
	h.Schedule("b", at(10))
	if next, ok := h.Next(); !ok || next != at(10) || h.Len() != 2 {
		t.Errorf("Next = %v, %v with Len %d; want %v, true with 2", next, ok, h.Len(), at(10))
	}
	h.Clear()
	if _, ok := h.Next(); ok || h.Len() != 0 {
		t.Error("a cleared heap is not empty")
	}
	h.Schedule("a", at(30)) // usable after Clear
	if got := popAll(&h, at(30)); sprint(got) != "[a]" {
		t.Errorf("after Clear: popped %v", got)
	}
}

// reference is the delay heap of client-go's design: container/heap over pointers, with a map
// to find an item's entry. Heap must release items in exactly its order, ties included.
type reference struct {
	entries []*refEntry
	byItem  map[int]*refEntry
}

type refEntry struct {
	item  int
	at    time.Duration
	index int
}

func (r *reference) Len() int           { return len(r.entries) }
func (r *reference) Less(i, j int) bool { return r.entries[i].at < r.entries[j].at }
func (r *reference) Swap(i, j int) {
	r.entries[i], r.entries[j] = r.entries[j], r.entries[i]
	r.entries[i].index, r.entries[j].index = i, j
}
func (r *reference) Push(x any) {
	e := x.(*refEntry)
	e.index = len(r.entries)
	r.entries = append(r.entries, e)
}
func (r *reference) Pop() any {
	e := r.entries[len(r.entries)-1]
	r.entries = r.entries[:len(r.entries)-1]
	return e
}

func (r *reference) schedule(item int, when time.Duration) {
	if e, ok := r.byItem[item]; ok {
		if when < e.at {
			e.at = when
			heap.Fix(r, e.index)
		}
		return
	}
	e := &refEntry{item: item, at: when}
	r.byItem[item] = e
	heap.Push(r, e)
}

func (r *reference) popDue(now time.Duration) (int, bool) {
	if len(r.entries) == 0 || r.entries[0].at > now {
		return 0, false
	}
	e := heap.Pop(r).(*refEntry)
	delete(r.byItem, e.item)
	return e.item, true
}

func TestHeapReleasesInContainerHeapOrder(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 0))
		var h Heap[int]
		ref := &reference{byItem: map[int]*refEntry{}}
		now := 0
		for op := range 300 {
			switch rng.IntN(4) {
			case 0, 1, 2:
				// Few distinct instants, so that ties are common.
				item, when := rng.IntN(40), at(now+rng.IntN(5)*10)
				h.Schedule(item, when)
				ref.schedule(item, when)
			case 3:
				now += rng.IntN(3) * 10
				for {
					want, wantOK := ref.popDue(at(now))
					got, gotOK := h.PopDue(at(now))
					if got != want || gotOK != wantOK {
						t.Fatalf("seed %d, op %d: PopDue = %d, %v; container/heap gives %d, %v", seed, op, got, gotOK, want, wantOK)
					}
					if !gotOK {
						break
					}
				}
			}
			if h.Len() != ref.Len() {
				t.Fatalf("seed %d, op %d: Len = %d, want %d", seed, op, h.Len(), ref.Len())
			}
		}
	}
}

func sprint(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "true"
		}
		return "false"
	case []string:
		s := "["
		for i, x := range v {
			if i > 0 {
				s += " "
			}
			s += x
		}
		return s + "]"
	}
	panic("unexpected")
}
