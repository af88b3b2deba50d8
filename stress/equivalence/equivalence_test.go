package equivalence

import (
	"hash/fnv"
	"strings"
	"testing"

	"github.com/actorqueue/workqueue/stress/internal/knob"
	"github.com/actorqueue/workqueue/stress/internal/shrink"
)

// Environment variables that size the suite (see stress/README.md).
const (
	seedVariable      = "ACTORQUEUE_SEED"
	sequencesVariable = "ACTORQUEUE_EQUIVALENCE_SEQUENCES"
)

// defaultSequences is how many sequences each variant runs by default.
const defaultSequences = 300

// TestEquivalence runs random sequences on client-go's queue and on actorqueue's, for every
// kind of queue and every built-in rate limiter, and fails on the first sequence in which an
// observation differs, with its seed and the shortest failing sequence shrinking finds.
func TestEquivalence(t *testing.T) {
	base := knob.Seed(t, seedVariable)
	n := knob.Int(t, sequencesVariable, defaultSequences)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			stream := fnv.New64a()
			stream.Write([]byte(v.name))
			for i := range uint64(n) {
				seed := base + i
				steps := generate(seed, stream.Sum64(), v.level)
				o := runInBubble(t, v, steered, steps)
				if !o.diverged {
					continue
				}
				shortest := shrink.Remove(steps, func(s []step) bool { return runInBubble(t, v, steered, s).diverged })
				o = runInBubble(t, v, steered, shortest)
				t.Fatalf("%s\nseed %d, %d steps; the shortest failing sequence found has %d, then the end "+
					"(observe all, shut down):\n%s\nreproduce, in stress/: %s=%d %s=1 go test -race "+
					"-run '^TestEquivalence$/^%s$' ./equivalence",
					o.reason, seed, len(steps), len(shortest), strings.Join(o.transcript, "\n"),
					seedVariable, seed, sequencesVariable, v.name)
			}
		})
	}
}

// TestRunnerCatchesADifference: the runner is not blind. Done of an item that is queued, not
// being processed, is a documented difference (client-go queues the item a second time), so
// the runner must report it, at the Len that follows.
func TestRunnerCatchesADifference(t *testing.T) {
	for _, v := range variants() {
		o := runInBubble(t, v, steered, []step{{kind: add, key: "a"}, {kind: doneUnheld, key: "a"}, {kind: length}})
		if want := "[equivalence] Len differs"; o.reason != want {
			t.Errorf("%s: reason %q, want %q; transcript:\n%s", v.name, o.reason, want, strings.Join(o.transcript, "\n"))
		}
	}
}
