package equivalence

import (
	"slices"
	"testing"

	"github.com/actorqueue/workqueue/stress/internal/shrink"
)

// TestShrinkFindsTheShortestSequence: among 80 random steps, shrink keeps exactly the three
// steps a made-up failure needs (two Adds of a, then a Len), in order.
func TestShrinkFindsTheShortestSequence(t *testing.T) {
	needed := []step{{kind: add, key: "a"}, {kind: add, key: "a"}, {kind: length}}
	fails := func(steps []step) bool {
		n := 0
		for _, s := range steps {
			if n < len(needed) && s == needed[n] {
				n++
			}
		}
		return n == len(needed)
	}
	for seed := range uint64(20) {
		steps := generate(seed, 0, rateLimiting)
		steps = slices.Insert(steps, len(steps), needed[2])
		steps = slices.Insert(steps, len(steps)/2, needed[1])
		steps = slices.Insert(steps, 0, needed[0])
		if got := shrink.Remove(steps, fails); !slices.Equal(got, needed) {
			t.Errorf("seed %d: shrink kept %v, want %v", seed, got, needed)
		}
	}
}
