package delay

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestDebounceWait(t *testing.T) {
	d := Debounce{Window: 100 * time.Millisecond, MaxWait: time.Second}
	for _, tt := range []struct {
		held, want time.Duration
	}{
		{0, 100 * time.Millisecond},
		{850 * time.Millisecond, 100 * time.Millisecond},
		{900 * time.Millisecond, 100 * time.Millisecond},
		{950 * time.Millisecond, 50 * time.Millisecond},
		{time.Second, 0},
		{2 * time.Second, 0},
	} {
		if got := d.Wait(tt.held); got != tt.want {
			t.Errorf("Wait(%v) = %v, want %v", tt.held, got, tt.want)
		}
	}
	if got := (Debounce{Window: time.Second}).Wait(time.Hour); got != time.Second {
		t.Errorf("without a maximum, Wait after an hour = %v, want the window", got)
	}
}

func TestWindow(t *testing.T) {
	type step struct {
		hold string // item to hold at ms, or "" to release what is due at ms
		ms   int
		want string // for a hold: whether it restarted; for a release: the items, in order
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"released once quiet", []step{
			{"a", 0, "false"}, {"", 99, "[]"}, {"", 100, "[a]"}, {"", 1000, "[]"},
		}},
		{"each add restarts the window", []step{
			{"a", 0, "false"}, {"a", 60, "true"}, {"", 100, "[]"}, {"a", 150, "true"},
			{"", 249, "[]"}, {"", 250, "[a]"},
		}},
		{"the maximum wait counts from the first add", []step{
			{"a", 0, "false"}, {"a", 90, "true"}, {"a", 180, "true"}, {"a", 270, "true"},
			{"", 299, "[]"}, {"a", 299, "true"}, {"", 300, "[a]"},
		}},
		{"a released item starts afresh", []step{
			{"a", 0, "false"}, {"a", 200, "true"}, {"", 300, "[a]"}, {"a", 310, "false"},
			{"", 410, "[a]"},
		}},
		{"earliest first, a restarted item moves back", []step{
			{"a", 0, "false"}, {"b", 10, "false"}, {"c", 20, "false"}, {"a", 30, "true"},
			{"", 200, "[b c a]"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWindow[string](Debounce{Window: 100 * time.Millisecond, MaxWait: 300 * time.Millisecond})
			for i, s := range tt.steps {
				var got string
				if s.hold != "" {
					got = sprint(w.Hold(s.hold, at(s.ms)))
				} else {
					var out []string
					for item, ok := w.PopDue(at(s.ms)); ok; item, ok = w.PopDue(at(s.ms)) {
						out = append(out, item)
					}
					got = sprint(out)
				}
				if got != s.want {
					t.Errorf("step %d: got %s, want %s", i, got, s.want)
				}
			}
			if w.Len() != 0 {
				t.Errorf("%d items still held", w.Len())
			}
		})
	}
}

func TestWindowDrop(t *testing.T) {
	w := NewWindow[string](Debounce{Window: 100 * time.Millisecond})
	w.Hold("a", at(0))
	w.Hold("b", at(10))
	if !w.Drop("a") || w.Drop("a") || w.Has("a") || w.Len() != 1 {
		t.Fatal("Drop did not let go of a held item exactly once")
	}
	if next, ok := w.Next(); !ok || next != at(110) {
		t.Errorf("Next = %v, %v; want %v", next, ok, at(110))
	}
	if w.Hold("a", at(20)) {
		t.Error("an item dropped was still held: its add restarted a window")
	}
}

func TestNewWindowPanicsOnABadRule(t *testing.T) {
	for _, d := range []Debounce{{}, {Window: -1}, {Window: time.Second, MaxWait: -1}, {Window: time.Second, MaxWait: time.Millisecond}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewWindow(%+v) did not panic", d)
				}
			}()
			NewWindow[int](d)
		}()
	}
}

// TestHeapSetAndRemove compares Set and Remove, mixed with Schedule and PopDue, with a sorted
// slice: the set of items and their instants, and the order instants come out in.
func TestHeapSetAndRemove(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for run := range 200 {
		var h Heap[int]
		want := map[int]time.Duration{}
		for step := range 300 {
			item := r.IntN(20)
			at := time.Duration(r.IntN(50))
			switch r.IntN(4) {
			case 0:
				h.Set(item, at)
				want[item] = at
			case 1:
				h.Schedule(item, at)
				if old, ok := want[item]; !ok || at < old {
					want[item] = at
				}
			case 2:
				_, ok := want[item]
				if got := h.Remove(item); got != ok {
					t.Fatalf("run %d step %d: Remove(%d) = %v, want %v", run, step, item, got, ok)
				}
				delete(want, item)
			case 3:
				now := time.Duration(r.IntN(50))
				last := time.Duration(-1)
				for item, ok := h.PopDue(now); ok; item, ok = h.PopDue(now) {
					at, held := want[item]
					if !held || at > now || at < last {
						t.Fatalf("run %d step %d: PopDue(%v) = %d (due %v, held %v) after one due %v", run, step, now, item, at, held, last)
					}
					last = at
					delete(want, item)
				}
				for item, at := range want {
					if at <= now {
						t.Fatalf("run %d step %d: %d due at %v was not popped at %v", run, step, item, at, now)
					}
				}
			}
			if h.Len() != len(want) {
				t.Fatalf("run %d step %d: Len %d, want %d", run, step, h.Len(), len(want))
			}
			if len(want) > 0 {
				next, _ := h.Next()
				if earliest := slices.Min(mapValues(want)); next != earliest {
					t.Fatalf("run %d step %d: Next %v, want %v", run, step, next, earliest)
				}
			}
		}
	}
}

func mapValues(m map[int]time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
