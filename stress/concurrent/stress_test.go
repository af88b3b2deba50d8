package concurrent

import (
	"strings"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/stress/internal/knob"
)

// Environment variables that size the suite (see stress/README.md).
const (
	durationVariable = "ACTORQUEUE_STRESS_DURATION"
	seedVariable     = "ACTORQUEUE_SEED"
)

// defaultDuration is how long the suite runs by default: a few rounds of each variant.
const defaultDuration = 5 * time.Second

// TestStress plays rounds, each on a new queue, cycling through the variants, until the
// duration has passed on the wall clock (and at least one round of each variant), and fails on
// the first round that breaks an invariant.
func TestStress(t *testing.T) {
	budget := knob.Duration(t, durationVariable, defaultDuration)
	base := knob.Seed(t, seedVariable)
	began := time.Now()
	var total tally
	for i := 0; i < len(variants) || time.Since(began) < budget; i++ {
		r := &round{plan: newPlan(base + uint64(i))}
		r.run(t)
		r.check()
		total.count(r)
		if len(r.violations) > 0 {
			t.Fatalf("round %d (%s) broke %d invariants (at most %d shown):\n%s\nreproduce the round's "+
				"choices, in stress/: %s=%d %s=1ns go test -race -run '^TestStress$' ./concurrent",
				i, r.plan, len(r.violations), maxViolationsKept, strings.Join(r.violations, "\n"),
				seedVariable, r.plan.seed, durationVariable)
		}
	}
	t.Logf("%d rounds in %v: %d goroutines calling each queue; %d adds, %d processings",
		total.rounds, time.Since(began).Round(time.Millisecond), producers+workers+samplers+1, total.adds, total.processings)
}

// tally counts what the rounds did.
type tally struct{ rounds, adds, processings int }

func (t *tally) count(r *round) {
	t.rounds++
	for _, as := range r.adds {
		t.adds += len(as)
	}
	for _, ps := range r.processings {
		t.processings += len(ps)
	}
}
