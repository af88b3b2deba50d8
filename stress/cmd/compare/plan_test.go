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
