package priority

import (
	"slices"
	"testing"

	"github.com/actorqueue/workqueue/stress/internal/shrink"
)

// simplest returns a failing sequence derived from steps, as short and as plain as it can
// find, keeping the steps' order. steps must fail. It removes steps (shrink.Remove) until no
// single step can go; then it simplifies what is left (one item per AddWithOpts, no option)
// and starts again while that helps.
func simplest(steps []step, fails func([]step) bool) []step {
	for {
		steps = shrink.Remove(steps, fails)
		simpler, ok := simplify(steps, fails)
		if !ok {
			return steps
		}
		steps = simpler
	}
}

// simplify tries plainer versions of each AddWithOpts step, one at a time, and returns the first
// that still fails.
func simplify(steps []step, fails func([]step) bool) ([]step, bool) {
	for i, s := range steps {
		if s.kind != addWithOpts {
			continue
		}
		for _, plainer := range plainer(s) {
			candidate := slices.Clone(steps)
			candidate[i] = plainer
			if fails(candidate) {
				return candidate, true
			}
		}
	}
	return nil, false
}

// plainer returns the versions of an AddWithOpts step with one item fewer or one option less.
func plainer(s step) []step {
	var out []step
	for i := range s.keys {
		if len(s.keys) > 1 {
			fewer := s
			fewer.keys = slices.Delete(slices.Clone(s.keys), i, i+1)
			out = append(out, fewer)
		}
	}
	if s.delay != 0 {
		out = append(out, s)
		out[len(out)-1].delay = 0
	}
	if s.rateLimited {
		out = append(out, s)
		out[len(out)-1].rateLimited = false
	}
	if s.priority != nil {
		out = append(out, s)
		out[len(out)-1].priority = nil
	}
	return out
}

// TestShrinkFindsTheShortestSequence: among random steps, simplest keeps exactly the two steps a
// made-up failure needs (an AddWithOpts of a at priority 2, then a Len), in order, and strips
// the AddWithOpts of the items and options the failure does not need.
func TestShrinkFindsTheShortestSequence(t *testing.T) {
	two := ptr(2)
	needs := func(s step) bool { return s.kind == addWithOpts && slices.Contains(s.keys, "a") && s.priority == two }
	fails := func(steps []step) bool {
		i := slices.IndexFunc(steps, needs)
		return i >= 0 && slices.ContainsFunc(steps[i+1:], func(s step) bool { return s.kind == length })
	}
	for seed := range uint64(20) {
		steps := generate(seed, 0)
		steps = slices.Insert(steps, len(steps)/2, step{kind: length})
		steps = slices.Insert(steps, 0, step{kind: addWithOpts, keys: []string{"b", "a", "c"}, delay: 5, rateLimited: true, priority: two})
		got := simplest(steps, fails)
		want := []step{{kind: addWithOpts, keys: []string{"a"}, priority: two}, {kind: length}}
		if len(got) != 2 || got[0].String() != want[0].String() || got[0].priority != two || got[1].kind != length {
			t.Errorf("seed %d: shrink kept %v, want %v", seed, got, want)
		}
	}
}
