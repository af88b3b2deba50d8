package equivalence

import (
	"slices"
	"testing"
)

// shrink returns a failing subsequence of steps, as short as it can find, keeping the steps'
// order. steps must fail. It removes chunks of halving size, as delta debugging does, and ends
// with passes that remove one step at a time until no single removal fails any more, so the
// result is 1-minimal: dropping any one of its steps makes it pass.
func shrink(steps []step, fails func([]step) bool) []step {
	for size := max(len(steps)/2, 1); ; {
		removed := false
		for i := 0; i < len(steps); {
			end := min(i+size, len(steps))
			candidate := slices.Concat(steps[:i], steps[end:])
			if fails(candidate) {
				steps, removed = candidate, true
				continue
			}
			i = end
		}
		switch {
		case size > 1:
			size /= 2
		case !removed:
			return steps
		}
	}
}

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
		if got := shrink(steps, fails); !slices.Equal(got, needed) {
			t.Errorf("seed %d: shrink kept %v, want %v", seed, got, needed)
		}
	}
}
