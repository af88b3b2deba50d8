package priority

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// step is one call on a State and its expected answer:
//
//	"add a"            add a at priority 0, ready now      → what changed, as Added
//	"add a 5"          add a at priority 5
//	"add a 5 +10ms"    add a at priority 5, due 10ms after t0
//	"promote +10ms"    promote everything due 10ms after t0 → the items promoted, "a/5 b/0"
//	"out"              hand out the best ready item      → "a/5", or "none"
//	"done a"           Done(a)                            → true or false
//	"len"              Len, Waiting, Processing, Blocked  → "1 0 2 0"
type step struct{ call, want string }

func run(t *testing.T, steps []step) {
	t.Helper()
	s := New[string]()
	for i, st := range steps {
		if got := do(s, st.call); got != st.want {
			t.Errorf("step %d (%s): got %q, want %q", i, st.call, got, st.want)
		}
	}
}

func do(s *State[string], call string) string {
	f := strings.Fields(call)
	at := func(i int) time.Time {
		if len(f) <= i {
			return time.Time{}
		}
		d, err := time.ParseDuration(strings.TrimPrefix(f[i], "+"))
		if err != nil {
			panic(err)
		}
		return t0.Add(d)
	}
	switch f[0] {
	case "add":
		priority := 0
		if len(f) > 2 {
			fmt.Sscan(f[2], &priority)
		}
		a := s.Add(f[1], priority, at(3))
		return fmt.Sprintf("%+v", a)
	case "promote":
		var out []string
		for item, p, ok := s.PromoteDue(at(1)); ok; item, p, ok = s.PromoteDue(at(1)) {
			out = append(out, fmt.Sprintf("%s/%d", item, p))
		}
		return strings.Join(out, " ")
	case "out":
		item, p, ok := s.HandOut(t0)
		if !ok {
			return "none"
		}
		return fmt.Sprintf("%s/%d", item, p)
	case "done":
		return fmt.Sprint(s.Done(f[1]))
	case "len":
		return fmt.Sprint(s.Len(), s.Waiting(), s.Processing(), s.Blocked())
	}
	panic("unknown step " + call)
}

// added formats the Added an add should return.
func added(ready, raised bool, from, priority int) string {
	return fmt.Sprintf("%+v", Added{Ready: ready, Raised: raised, From: from, Priority: priority})
}

func TestPriorityState(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"FIFO within a priority, higher priority first", []step{
			{"add a", added(true, false, 0, 0)},
			{"add b 1", added(true, false, 0, 1)},
			{"add c", added(true, false, 0, 0)},
			{"add d 1", added(true, false, 0, 1)},
			{"out", "b/1"}, {"out", "d/1"}, {"out", "a/0"}, {"out", "c/0"}, {"out", "none"},
		}},
		{"an item added twice is handed out once", []step{
			{"add a", added(true, false, 0, 0)},
			{"add a", added(false, false, 0, 0)},
			{"len", "1 0 0 0"},
			{"out", "a/0"}, {"out", "none"},
		}},
		{"an item added while handed out waits for Done", []step{
			{"add a", added(true, false, 0, 0)},
			{"add b", added(true, false, 0, 0)},
			{"out", "a/0"},
			{"add a 2", added(true, false, 0, 2)},
			{"len", "2 0 1 1"},
			{"out", "b/0"}, {"out", "none"},
			{"done a", "true"},
			{"out", "a/2"},
			{"done a", "true"}, {"done a", "false"},
		}},
		{"the higher priority wins, and a raise moves the item behind its new level", []step{
			{"add a 1", added(true, false, 0, 1)},
			{"add b 2", added(true, false, 0, 2)},
			{"add c", added(true, false, 0, 0)},
			{"add a 0", added(false, false, 0, 1)}, // lower: ignored
			{"add c 2", added(false, true, 0, 2)},  // raised behind b
			{"add a 1", added(false, false, 0, 1)}, // equal: keeps its place
			{"out", "b/2"}, {"out", "c/2"}, {"out", "a/1"},
		}},
		{"the earliest instant wins; a ready item stays ready", []step{
			{"add a 0 +50ms", added(false, false, 0, 0)},
			{"add a 0 +70ms", added(false, false, 0, 0)},
			{"add a 0 +30ms", added(false, false, 0, 0)},
			{"len", "0 1 0 0"},
			{"promote +29ms", ""},
			{"promote +30ms", "a/0"},
			{"add a 0 +10ms", added(false, false, 0, 0)}, // already ready
			{"len", "1 0 0 0"},
			{"out", "a/0"},
		}},
		{"a waiting item added without a delay is ready at once, in its original place", []step{
			{"add a 0 +1h", added(false, false, 0, 0)},
			{"add b", added(true, false, 0, 0)},
			{"add a", added(true, false, 0, 0)},
			{"out", "a/0"}, {"out", "b/0"},
			{"promote +2h", ""}, // nothing is left to fire
		}},
		{"a waiting item raised and made ready goes behind its new level", []step{
			{"add a 0 +1h", added(false, false, 0, 0)},
			{"add b 1", added(true, false, 0, 1)},
			{"add a 1", added(true, false, 0, 1)},
			{"out", "b/1"}, {"out", "a/1"},
		}},
		{"items falling due join the ready items behind those ready before", []step{
			{"add a 5 +10ms", added(false, false, 0, 5)},
			{"add b 0 +10ms", added(false, false, 0, 0)},
			{"add c 5 +5ms", added(false, false, 0, 5)},
			{"add d 5", added(true, false, 0, 5)},
			{"promote +10ms", "c/5 a/5 b/0"},
			{"out", "d/5"}, {"out", "c/5"}, {"out", "a/5"}, {"out", "b/0"},
		}},
		{"a waiting item's priority rises in place", []step{
			{"add a 0 +10ms", added(false, false, 0, 0)},
			{"add b 0 +10ms", added(false, false, 0, 0)},
			{"add b 3 +20ms", added(false, false, 0, 3)},
			{"promote +10ms", "b/3 a/0"},
		}},
		{"Len counts ready items only, held-back ones included", []step{
			{"add a", added(true, false, 0, 0)},
			{"add b 0 +1s", added(false, false, 0, 0)},
			{"out", "a/0"},
			{"add a", added(true, false, 0, 0)},
			{"len", "1 1 1 1"},
			{"done z", "false"},
			{"done a", "true"},
			{"len", "1 1 0 0"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.steps) })
	}
}

func TestPriorityStateNextDue(t *testing.T) {
	s := New[string]()
	if _, ok := s.NextDue(); ok {
		t.Fatal("an empty state has a next instant")
	}
	s.Add("a", 0, t0.Add(time.Second))
	s.Add("b", 0, t0.Add(time.Minute))
	if at, ok := s.NextDue(); !ok || !at.Equal(t0.Add(time.Second)) {
		t.Errorf("NextDue = %v, %v", at, ok)
	}
	s.Add("a", 0, time.Time{})
	if at, _ := s.NextDue(); !at.Equal(t0.Add(time.Minute)) {
		t.Errorf("after a became ready, NextDue = %v", at)
	}
}

func TestPriorityStateInProcessing(t *testing.T) {
	s := New[string]()
	s.Add("a", 0, time.Time{})
	s.Add("b", 0, time.Time{})
	s.HandOut(t0.Add(time.Second))
	s.HandOut(t0)
	if got := s.InProcessing(); len(got) != 2 {
		t.Errorf("InProcessing = %v, want a and b", got)
	}
	if since, ok := s.OldestSince(); !ok || !since.Equal(t0) {
		t.Errorf("OldestSince = %v, %v; want %v", since, ok, t0)
	}
}
