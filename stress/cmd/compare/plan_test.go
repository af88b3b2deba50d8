package main

import (
	"strings"
	"testing"
)

// Every row has an id of its own, and issue 26's rows P1 to P4 and issue 35's D and M are all
// there.
func TestPlanHasEveryRowOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, exp := range plan(quick, func(string) wakeupFigures { return wakeupFigures{} }) {
		for _, r := range exp.rows {
			if seen[r.id] {
				t.Errorf("row %s appears twice", r.id)
			}
			seen[r.id] = true
		}
	}
	var missing []string
	for _, id := range []string{"1", "9b", "A", "P1a", "P1h", "P2a", "P2b", "P2c", "P2d", "P3a", "P3l", "P4a", "P4b",
		"D1a", "D1c", "D2a", "D2c", "Ma", "Mb"} {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the plan lacks rows %s", strings.Join(missing, ", "))
	}
}

// -only keeps the experiments with a row of the ids or prefixes given, in the plan's order.
func TestSelected(t *testing.T) {
	all := plan(quick, func(string) wakeupFigures { return wakeupFigures{} })
	var names []string
	for _, exp := range selected(all, "D2,Ma,9b") {
		names = append(names, exp.name)
	}
	want := []string{"observers", "duplicate-heavy bursts, 32 workers", "1,000 workers"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("selected experiments %q, want %q", names, want)
	}
	if got := selected(all, ""); len(got) != len(all) {
		t.Errorf("an empty -only selected %d experiments of %d", len(got), len(all))
	}
}

// Row B's title states the load of actorqueue's waiting set: 200k items just past a doubling
// (2^19 slots), 196,608 items at its three-quarter limit (2^18 slots).
func TestWaitingSetLoad(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{200_000, 200_000.0 / (1 << 19)}, {196_608, 0.75}, {196_609, 196_609.0 / (1 << 19)}, {1, 1.0 / 8}} {
		if got := waitingSetLoad(c.n); got != c.want {
			t.Errorf("waitingSetLoad(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}
