package queue

import (
	"fmt"
	"testing"
)

// TestGroupLimit: a step table of one limit of two items of a group out at once. A place
// offered at the limit is held, and rejoins once a Done brings its group below the limit;
// Lift lets every held place rejoin, in the order of the groups' names.
func TestGroupLimit(t *testing.T) {
	l := NewGroupLimit[string, string](groupOf, 2)
	steps := []struct {
		do, arg string
		want    string
	}{
		{"admit", "a", "true"},
		{"start", "a/1", ""},
		{"start", "a/2", ""},
		{"admit", "a", "false"}, // at its limit: held
		{"admit", "b", "true"},
		{"start", "b/1", ""},
		{"start", "b/2", ""},
		{"admit", "b", "false"},
		{"out", "a", "2"},
		{"group", "a/1", "a true"},
		{"group", "c/1", " false"},
		{"done", "c/1", " [] false"},  // not out: nothing
		{"done", "a/1", "a [a] true"}, // below the limit: a rejoins
		{"admit", "a", "true"},
		{"start", "a/3", ""},
		{"admit", "a", "false"},
		{"lift", "", "[a b]"},  // by name
		{"admit", "a", "true"}, // no limit once lifted
		{"done", "a/2", "a [] true"},
		{"done", "a/3", "a [] true"},
		{"done", "b/1", "b [] true"},
		{"done", "b/2", "b [] true"},
		{"kept", "", "0 0 0"}, // every map let go
	}
	for i, st := range steps {
		var got string
		switch st.do {
		case "admit":
			got = fmt.Sprint(l.Admit(st.arg, st.arg))
		case "start":
			l.Start(st.arg, groupOf(st.arg))
		case "out":
			got = fmt.Sprint(l.Out(st.arg))
		case "group":
			name, out := l.GroupOf(st.arg)
			got = fmt.Sprint(name, " ", out)
		case "done":
			name, rejoin, ok := l.Done(st.arg)
			got = fmt.Sprint(name, " ", rejoin, " ", ok)
		case "lift":
			got = fmt.Sprint(l.Lift())
		case "kept":
			got = fmt.Sprint(len(l.out), len(l.outOf), len(l.held))
		}
		if got != st.want {
			t.Errorf("step %d (%s %s): got %q, want %q", i, st.do, st.arg, got, st.want)
		}
	}
}
