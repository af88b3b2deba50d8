package main

import (
	"testing"
	"testing/synctest"

	"github.com/actorqueue/workqueue/stress/bench"
)

// The workloads of rows F2 and F3 run in a synctest bubble: every wait is then zero, but the
// places of the hand-outs and the counts in processing show the options at work, and the
// bubble ends only if every worker did.

// Row F2: with Group, a small group's items go out within the first rounds of turns; without,
// and on the implementations without the option, behind the whole burst.
func TestSmallGroupsBehindABurst(t *testing.T) {
	for _, impl := range bench.Impls() {
		for _, grouped := range []bool{false, true} {
			synctest.Test(t, func(t *testing.T) {
				res := smallGroupWaits(groupedQueue(impl, grouped, 0), 0)
				if len(res.places) != smallGroups*smallPerGroup {
					t.Fatalf("%s, Group %v: %d small items handed out, want %d", impl.Name, grouped, len(res.places), smallGroups*smallPerGroup)
				}
				last := res.places[len(res.places)-1]
				fair := grouped && (impl.Name == actorQueue || impl.Name == actorQueuePriority)
				// A round is one item of the big group and one of each small group.
				if bound := (smallGroups + 1) * smallPerGroup; fair && last > bound {
					t.Errorf("%s with Group: the last small item went out at place %d, want at most %d", impl.Name, last, bound)
				}
				if !fair && res.places[0] <= burstItems {
					t.Errorf("%s, Group %v: the first small item went out at place %d, before the burst of %d", impl.Name, grouped, res.places[0], burstItems)
				}
			})
		}
	}
}

// Row F3: with MaxPerGroup, never more of one group in processing than the limit; without,
// every worker holds an item of the hot group, queued first, during its (fake) wait.
func TestMostOfOneGroupInProcessing(t *testing.T) {
	for _, impl := range bench.Impls() {
		for _, limit := range []int{0, limitPerGroup} {
			synctest.Test(t, func(t *testing.T) {
				hot, other := mostOfOneGroup(groupedQueue(impl, limit > 0, limit), 1000)
				limits := limit > 0 && (impl.Name == actorQueue || impl.Name == actorQueuePriority)
				switch {
				case hot < 1 || other < 1:
					t.Errorf("%s, MaxPerGroup %d: at most %d hot and %d other items in processing, want at least 1 of each", impl.Name, limit, hot, other)
				case limits && (hot > limit || other > limit):
					t.Errorf("%s, MaxPerGroup %d: %d hot and %d other items of one group in processing at once", impl.Name, limit, hot, other)
				case !limits && hot != limitWorkers:
					t.Errorf("%s, no limit: at most %d hot items in processing at once, want all %d workers'", impl.Name, hot, limitWorkers)
				}
			})
		}
	}
}

// Row F4's queue groups its keys, and the production workload drains on it.
func TestProductionWithGroup(t *testing.T) {
	spec := bench.ProductionSpec{Objects: 200, Events: 600, Burst: 64, Workers: 4, FailPermille: 20,
		Retry: bench.Retry{Base: 0, Max: 0}, Sink: prometheusMetrics.sink()}
	res, ok := bench.Production(groupedActorQueue(), spec)
	if !ok || !res.Drained || res.Reconciles < int64(spec.Objects) {
		t.Errorf("production with Group: ok %v, drained %v, %d reconciles of %d objects", ok, res.Drained, res.Reconciles, spec.Objects)
	}
}
