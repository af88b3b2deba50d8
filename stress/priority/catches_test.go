package priority

import (
	"strings"
	"sync"
	"testing"

	actorqueue "github.com/actorqueue/workqueue"
)

// dropsPriority is actorqueue's queue with a deliberate bug: AddWithOpts ignores the priority.
type dropsPriority struct{ ours }

func (q dropsPriority) addWithOpts(o opts, items ...string) {
	o.priority = nil
	q.ours.addWithOpts(o, items...)
}

// ignoresRateLimit is actorqueue's queue with a deliberate bug: AddRateLimited adds at once.
type ignoresRateLimit struct{ ours }

func (q ignoresRateLimit) AddRateLimited(item string) { q.Add(item) }

// losesRetries records actorqueue's metrics with a deliberate bug: retries are not counted.
type losesRetries struct{ actorQueueProvider }

func (losesRetries) NewRetriesMetric(string) actorqueue.CounterMetric {
	return count{new(sync.Mutex), new(int)}
}

// broken returns the default variant with actorqueue's queue wrapped by wrap.
func broken(name string, wrap func(ours) queue) variant {
	return variant{name, func() (queue, queue, [2]*tally) {
		cq, aq, m := variants()[0].build()
		return cq, wrap(aq.(ours)), m
	}}
}

// TestSuiteCatchesBugs: the suite is not blind. With a deliberate bug on actorqueue's side, a
// few random sequences must diverge, and shrinking must bring the divergence down to the few
// steps that show it.
func TestSuiteCatchesBugs(t *testing.T) {
	for _, c := range []struct {
		v        variant
		maxSteps int // in the shortest failing sequence
	}{
		{broken("drops-priority", func(q ours) queue { return dropsPriority{q} }), 2},
		{broken("ignores-rate-limit", func(q ours) queue { return ignoresRateLimit{q} }), 1},
		{withMetrics("loses-retries", func(t *tally) actorqueue.MetricsProvider { return losesRetries{actorQueueProvider{t}} }), 1},
	} {
		t.Run(c.v.name, func(t *testing.T) {
			for seed := range uint64(200) {
				steps := generate(seed, 0)
				if !runInBubble(t, c.v, steps).diverged {
					continue
				}
				shortest := simplest(steps, func(s []step) bool { return runInBubble(t, c.v, s).diverged })
				o := runInBubble(t, c.v, shortest)
				t.Logf("seed %d: %s in %d steps, shrunk to %d:\n%s", seed, o.reason, len(steps), len(shortest),
					strings.Join(o.transcript, "\n"))
				if len(shortest) > c.maxSteps {
					t.Errorf("the shortest failing sequence has %d steps, want %d at most", len(shortest), c.maxSteps)
				}
				return
			}
			t.Error("200 sequences did not find the bug")
		})
	}
}
