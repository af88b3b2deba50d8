package linearizability

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/actorqueue/workqueue/stress/internal/knob"
)

// Environment variables that size the suite (see stress/README.md).
const (
	seedVariable      = "ACTORQUEUE_SEED"
	historiesVariable = "ACTORQUEUE_LINEARIZABILITY_HISTORIES"
)

// defaultHistories is how many histories a run checks by default.
const defaultHistories = 3000

// checkTimeout bounds porcupine's search on one history; a history it cannot decide in that
// time fails the test too.
const checkTimeout = time.Minute

// TestLinearizable records concurrent histories of a rate-limiting queue and checks each
// against the sequential model. On a violation it writes porcupine's visualization of the
// history and fails with its path.
func TestLinearizable(t *testing.T) {
	base := knob.Seed(t, seedVariable)
	n := knob.Int(t, historiesVariable, defaultHistories)
	for i := range uint64(n) {
		seed := base + i
		history := record(t, seed)
		switch porcupine.CheckOperationsTimeout(model, history, checkTimeout) {
		case porcupine.Ok:
			continue
		case porcupine.Unknown:
			t.Fatalf("[linearizability] porcupine could not decide history %d (seed %d, %d operations) within %v",
				i, seed, len(history), checkTimeout)
		}
		t.Fatalf("[linearizability] history %d (seed %d, %d operations) is not linearizable; "+
			"porcupine's visualization: %s\n%s", i, seed, len(history), visualize(t, history), listing(history))
	}
}

// visualize writes porcupine's HTML visualization of history to a new file that outlives the
// test, and returns its path.
func visualize(t *testing.T, history []porcupine.Operation) string {
	_, info := porcupine.CheckOperationsVerbose(model, history, checkTimeout)
	f, err := os.CreateTemp("", "actorqueue-linearizability-*.html")
	if err != nil {
		t.Fatalf("creating the visualization file: %v", err)
	}
	defer f.Close()
	if err := porcupine.Visualize(model, info, f); err != nil {
		t.Fatalf("writing the visualization to %s: %v", f.Name(), err)
	}
	return f.Name()
}

// listing writes history as text, one operation a line in the order of their calls.
func listing(history []porcupine.Operation) string {
	ops := slices.SortedFunc(slices.Values(history), func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "  client %d  [%3d, %3d]  %s\n", op.ClientId, op.Call, op.Return,
			describe(op.Input.(input), op.Output.(output)))
	}
	return b.String()
}
