package priority

import (
	"hash/fnv"
	"strings"
	"testing"

	"github.com/actorqueue/workqueue/stress/internal/knob"
)

// Environment variables that size the suite.
const (
	seedVariable      = "ACTORQUEUE_SEED"
	sequencesVariable = "ACTORQUEUE_PRIORITY_SEQUENCES"
)

// defaultSequences is how many sequences each variant runs by default.
const defaultSequences = 2000

// TestPriorityEquivalence runs random sequences on controller-runtime's priority queue and on
// actorqueue's, for each variant, and fails on the first sequence in which an observation
// differs, with its seed and the shortest failing sequence shrinking finds.
func TestPriorityEquivalence(t *testing.T) {
	base := knob.Seed(t, seedVariable)
	n := knob.Int(t, sequencesVariable, defaultSequences)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			stream := fnv.New64a()
			stream.Write([]byte(v.name))
			for i := range uint64(n) {
				seed := base + i
				steps := generate(seed, stream.Sum64())
				o := runInBubble(t, v, steps)
				if !o.diverged {
					continue
				}
				shortest := simplest(steps, func(s []step) bool { return runInBubble(t, v, s).diverged })
				o = runInBubble(t, v, shortest)
				t.Fatalf("%s\nseed %d, %d steps; the shortest failing sequence found has %d, then the end "+
					"(observe all, shut down):\n%s\nreproduce, in stress/: %s=%d %s=1 go test -race "+
					"-run '^TestPriorityEquivalence$/^%s$' ./priority",
					o.reason, seed, len(steps), len(shortest), strings.Join(o.transcript, "\n"),
					seedVariable, seed, sequencesVariable, v.name)
			}
		})
	}
}
