package limiter

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCounts: a step table of one item's requeues under a maximum of two, a Drop, and a second
// item counted apart.
func TestCounts(t *testing.T) {
	var c Counts[string]
	steps := []struct {
		do     string // "count" or "drop"
		item   string
		max    int
		gaveUp int
	}{
		{"count", "a", 0, 0}, // no maximum: nothing counted
		{"count", "a", 2, 0},
		{"count", "b", 2, 0},
		{"count", "a", 2, 0},
		{"count", "a", 2, 3}, // the third requeue passes the maximum
		{"count", "a", 2, 0}, // its count was dropped with it
		{"drop", "b", 0, 0},
		{"count", "b", 2, 0},
		{"count", "b", 2, 0},
		{"count", "b", 2, 3},
	}
	for i, s := range steps {
		if s.do == "drop" {
			c.Drop(s.item)
			continue
		}
		assert.Equal(t, s.gaveUp, c.Count(s.item, s.max), "step %d: %s %s", i, s.do, s.item)
	}
}
