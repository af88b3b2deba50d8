package main

import (
	"strings"
	"testing"
)

// Every row has an id of its own, and issue 26's rows P1 to P4 are all there.
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
	for _, id := range []string{"1", "9b", "A", "P1a", "P1h", "P2a", "P2b", "P3a", "P3l", "P4a", "P4b"} {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the plan lacks rows %s", strings.Join(missing, ", "))
	}
}
