package bench

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// One worker that sleeps 1 ms per reconcile takes 50 keys, added in bursts of 10 on a bubble's
// clock, each once the one before is reconciled: the n-th key of a burst waited exactly n ms, on
// every queue.
func TestProductionTimesEachAddToItsGet(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				spec := ProductionSpec{Objects: 50, Events: 50, Burst: 10, Backlog: 1, Workers: 1,
					Wait: time.Millisecond, Retry: DefaultRetry}
				res, _ := Production(impl, spec)
				var want []time.Duration
				for n := range 10 {
					for range 5 {
						want = append(want, time.Duration(n)*time.Millisecond)
					}
				}
				if !slices.Equal(res.Latencies, want) {
					t.Errorf("Latencies = %v, want 0 to 9 ms, five times each", res.Latencies)
				}
				if res.Elapsed != 50*time.Millisecond {
					t.Errorf("Elapsed = %v, want 50 reconciles of 1 ms", res.Elapsed)
				}
			})
		})
	}
}

// Two producers each add a stream of their own, initial list and bursts; the workers time an
// add only when its key was owed nothing.
func TestProductionWithTwoProducers(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				spec := productionSpec(&Sink{Atomic: new(AtomicMetrics)})
				spec.Producers, spec.Events, spec.Burst, spec.Window = 2, 800, 60, 20
				recorded, queues := recordingKeys(impl)
				res, _ := Production(recorded, spec)
				rec := queues()[0]
				checkProduction(t, spec, res, rec)
				want := map[string]int{}
				keys := ObjectKeys(spec.Objects)
				for p := range 2 {
					for _, k := range InformerStream(spec.Objects, 400, 60, 20, uint64(p)) {
						want[keys[k]]++
					}
				}
				got := map[string]int{}
				for _, e := range rec.events {
					if e.op == "Add" {
						got[e.key]++
					}
				}
				for key, n := range want {
					if got[key] != n {
						t.Errorf("key %s added %d times, want %d: each producer adds its own stream", key, got[key], n)
						break
					}
				}
				gets := rec.count(func(e keyEvent) bool { return e.op == "Get" })
				if n := len(res.Latencies); n < spec.Objects || n > gets {
					t.Errorf("%d latencies, want one per add that found its key owed nothing: at least one per object (%d), at most one per Get (%d)",
						n, spec.Objects, gets)
				}
			})
		})
	}
}

// A producer starts a burst only once at most Backlog keys are owed a reconcile: replaying the
// calls, keys added since their last Get number at most Backlog when each burst begins.
func TestProductionWaitsForTheBacklog(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				spec := ProductionSpec{Objects: 200, Events: 400, Burst: 20, Window: 200, Backlog: 5, Workers: 1,
					Wait: 100 * time.Microsecond, Retry: DefaultRetry}
				recorded, queues := recordingKeys(impl)
				Production(recorded, spec)
				owed := map[string]bool{}
				adds := 0
				for _, e := range queues()[0].events {
					switch e.op {
					case "Get":
						delete(owed, e.key)
					case "Add":
						if adds%spec.Burst == 0 && adds > 0 && len(owed) > spec.Backlog {
							t.Fatalf("add %d begins a burst with %d keys owed a reconcile, want at most %d", adds, len(owed), spec.Backlog)
						}
						owed[e.key] = true
						adds++
					}
				}
			})
		})
	}
}

func TestInformerStream(t *testing.T) {
	if !slices.Equal(InformerStream(100, 1000, 20, 80, 0), InformerEvents(100, 1000, 20)) {
		t.Error("stream 0 with a window of 4·burst differs from InformerEvents")
	}
	a, b := InformerStream(300, 1300, 100, 25, 0), InformerStream(300, 1300, 100, 25, 1)
	if slices.Equal(a, b) {
		t.Error("streams 0 and 1 are the same")
	}
	for from := 300; from < len(a); from += 100 {
		burst := a[from:min(from+100, len(a))]
		if spread := slices.Max(burst) - slices.Min(burst); spread >= 25 {
			t.Fatalf("burst at %d spans %d objects, want a window of 25", from, spread+1)
		}
		if distinct := len(slices.Compact(slices.Sorted(slices.Values(burst)))); distinct > 25 {
			t.Fatalf("burst at %d has %d distinct keys, want at most 25", from, distinct)
		}
	}
}
