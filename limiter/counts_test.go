package limiter

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCounts: a step table of one item's requeues under a maximum of two, a Drop, an Uncount,
// and a second item counted apart.
func TestCounts(t *testing.T) {
	var c Counts[string]
	steps := []struct {
		do     string // "count", "drop" or "uncount"
		item   string
		max    int
		giveUp bool
	}{
		{"count", "a", 0, false}, // no maximum: nothing counted
		{"count", "a", 2, false},
		{"count", "b", 2, false},
		{"count", "a", 2, false},
		{"count", "a", 2, true},  // the third requeue passes the maximum
		{"count", "a", 2, false}, // its count was dropped with it
		{"drop", "b", 0, false},
		{"count", "b", 2, false},
		{"count", "b", 2, false},
		{"count", "b", 2, true},
		{"count", "a", 2, false},
		{"uncount", "a", 0, false}, // a requeue that did not happen: a's count is one again
		{"count", "a", 2, false},
		{"count", "a", 2, true},
		{"uncount", "b", 0, false}, // b's count was dropped: it stays at zero
		{"count", "b", 2, false},
		{"count", "b", 2, false},
		{"count", "b", 2, true},
	}
	for i, s := range steps {
		switch s.do {
		case "drop":
			c.Drop(s.item)
			continue
		case "uncount":
			c.Uncount(s.item)
			continue
		}
		assert.Equal(t, s.giveUp, c.Count(s.item, s.max), "step %d: %s %s", i, s.do, s.item)
	}
}
