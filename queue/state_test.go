package queue

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// step is one call on a State and the answer expected from it, followed by the expected
// queue length and processing count.
type step struct {
	call       string // "add x", "reserve", "take n", "done x"
	want       string // the call's answer, formatted as result formats it
	len, doing int
}

func run(t *testing.T, s *State[string], steps []step) {
	t.Helper()
	for i, st := range steps {
		got := call(s, st.call)
		if got != st.want {
			t.Errorf("step %d (%s): got %q, want %q", i, st.call, got, st.want)
		}
		if s.Len() != st.len || s.Processing() != st.doing {
			t.Errorf("step %d (%s): Len %d, Processing %d; want %d, %d", i, st.call, s.Len(), s.Processing(), st.len, st.doing)
		}
	}
}

// call performs one step and formats its answer.
func call(s *State[string], c string) string {
	var verb, arg string
	fmt.Sscan(c, &verb, &arg)
	switch verb {
	case "add":
		// Pending foretells what Add will do: leave a pending item as it is.
		pending := s.Pending(arg)
		added := s.Add(arg)
		if added == pending {
			return fmt.Sprintf("%v, though Pending said %v", added, pending)
		}
		return fmt.Sprint(added)
	case "reserve":
		item, seq, ok := s.Reserve(t0)
		if !ok {
			return "none"
		}
		return fmt.Sprintf("%s#%d", item, seq)
	case "take":
		var upTo uint64
		fmt.Sscan(arg, &upTo)
		var taken []string
		for item, ok := s.TakeNext(upTo); ok; item, ok = s.TakeNext(upTo) {
			taken = append(taken, item)
		}
		return fmt.Sprint(taken)
	case "done":
		return fmt.Sprint(s.Done(arg))
	}
	panic("unknown step " + c)
}

func TestState(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"fifo order", []step{
			{"add a", "true", 1, 0},
			{"add b", "true", 2, 0},
			{"reserve", "a#1", 2, 0},
			{"reserve", "b#2", 2, 0},
			{"reserve", "none", 2, 0},
			{"take 2", "[a b]", 0, 2},
		}},
		{"adding a waiting item again is a no-op", []step{
			{"add a", "true", 1, 0},
			{"add a", "false", 1, 0},
			{"reserve", "a#1", 1, 0},
			{"add a", "false", 1, 0},
			{"take 1", "[a]", 0, 1},
			{"done a", "true", 0, 0},
			{"reserve", "none", 0, 0},
		}},
		{"added while processing: processed again after done", []step{
			{"add a", "true", 1, 0},
			{"reserve", "a#1", 1, 0},
			{"take 1", "[a]", 0, 1},
			{"add a", "true", 0, 1},
			{"add a", "false", 0, 1},
			{"reserve", "none", 0, 1},
			{"done a", "true", 1, 0},
			{"reserve", "a#2", 1, 0},
			{"take 2", "[a]", 0, 1},
			{"done a", "true", 0, 0},
		}},
		{"take is by prefix", []step{
			{"add a", "true", 1, 0},
			{"add b", "true", 2, 0},
			{"add c", "true", 3, 0},
			{"reserve", "a#1", 3, 0},
			{"reserve", "b#2", 3, 0},
			{"reserve", "c#3", 3, 0},
			{"take 2", "[a b]", 1, 2},
			{"take 1", "[]", 1, 2},
			{"take 3", "[c]", 0, 3},
		}},
		{"done of an item not being processed is a no-op", []step{
			{"done a", "false", 0, 0},
			{"add a", "true", 1, 0},
			{"done a", "false", 1, 0},
			{"reserve", "a#1", 1, 0},
			{"done a", "false", 1, 0},
			{"take 1", "[a]", 0, 1},
			{"done a", "true", 0, 0},
			{"done a", "false", 0, 0},
			{"reserve", "none", 0, 0},
		}},
		{"re-added item goes to the back", []step{
			{"add a", "true", 1, 0},
			{"add b", "true", 2, 0},
			{"reserve", "a#1", 2, 0},
			{"take 1", "[a]", 1, 1},
			{"add a", "true", 1, 1},
			{"add c", "true", 2, 1},
			{"done a", "true", 3, 0},
			{"reserve", "b#2", 3, 0},
			{"reserve", "c#3", 3, 0},
			{"reserve", "a#4", 3, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, New[string](nil), tt.steps) })
	}
}

// traced is a Storage that records Touch calls and can be told to panic.
type traced struct {
	FIFO[string]
	touched []string
	panicOn string // "push", "touch" or "pop"
}

func (s *traced) Touch(item string) {
	if s.panicOn == "touch" {
		panic("touch")
	}
	s.touched = append(s.touched, item)
}

func (s *traced) Push(item string) {
	if s.panicOn == "push" {
		panic("push")
	}
	s.FIFO.Push(item)
}

func (s *traced) Pop() string {
	if s.panicOn == "pop" {
		panic("pop")
	}
	return s.FIFO.Pop()
}

func TestStateTouchesOnlyStoredItems(t *testing.T) {
	storage := &traced{}
	s := New[string](storage)
	run(t, s, []step{
		{"add a", "true", 1, 0},
		{"add a", "false", 1, 0}, // stored: touched
		{"add b", "true", 2, 0},
		{"reserve", "a#1", 2, 0},
		{"add a", "true", 2, 0},  // popped for a getter, so being processed: not touched
		{"add a", "false", 2, 0}, // and due again already
		{"take 1", "[a]", 1, 1},
		{"add a", "false", 1, 1}, // processing, due again: not touched
		{"add b", "false", 1, 1}, // stored: touched
		{"done a", "true", 2, 0}, // back into storage
	})
	if fmt.Sprint(storage.touched) != "[a b]" {
		t.Errorf("touched %v, want [a b]", storage.touched)
	}
}

func TestStateSurvivesPanickingStorage(t *testing.T) {
	storage := &traced{}
	s := New[string](storage)
	run(t, s, []step{
		{"add a", "true", 1, 0},
		{"add x", "true", 2, 0},
		{"reserve", "a#1", 2, 0},
		{"take 1", "[a]", 1, 1},
		{"add a", "true", 1, 1},
	})

	storage.panicOn = "push"
	mustPanic(t, "push", func() { s.Add("b") })
	mustPanic(t, "push", func() { s.Done("a") })
	storage.panicOn = "touch"
	mustPanic(t, "touch", func() { s.Add("x") })
	storage.panicOn = "pop"
	mustPanic(t, "pop", func() { s.Reserve(t0) })
	storage.panicOn = ""

	// b was never added, a is still being processed and due again, x still waits:
	// nothing was lost and nothing changed.
	run(t, s, []step{
		{"add b", "true", 2, 1},
		{"done a", "true", 3, 0},
		{"reserve", "x#2", 3, 0},
		{"reserve", "b#3", 3, 0},
		{"reserve", "a#4", 3, 0},
	})
}

func mustPanic(t *testing.T, want any, f func()) {
	t.Helper()
	defer func() {
		if got := recover(); got != want {
			t.Errorf("panic %v, want %v", got, want)
		}
	}()
	f()
}

func TestStateCounts(t *testing.T) {
	s := New[string](nil)
	for _, item := range []string{"a", "b", "c", "d"} {
		s.Add(item)
	}
	for i := range 3 {
		_, seq, _ := s.Reserve(t0.Add(time.Duration(i+1) * time.Second))
		s.TakeNext(seq)
	}
	s.Add("a")
	if oldest, ok := s.OldestSince(); !ok || !oldest.Equal(t0.Add(time.Second)) {
		t.Errorf("OldestSince = %v, %v; want %v", oldest, ok, t0.Add(time.Second))
	}
	got := fmt.Sprint(s.Len(), s.Processing(), s.Requeued(), len(s.InProcessing()))
	if got != "1 3 1 3" {
		t.Errorf("Len, Processing, Requeued, len(InProcessing) = %s; want 1 3 1 3", got)
	}
	in := map[string]bool{}
	for _, item := range s.InProcessing() {
		in[item] = true
	}
	if !in["a"] || !in["b"] || !in["c"] || in["d"] {
		t.Errorf("InProcessing = %v, want a, b and c", s.InProcessing())
	}
}
