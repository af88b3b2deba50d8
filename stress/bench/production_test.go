package bench

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// productionSpec is a small production run in which failures are frequent enough to be seen.
func productionSpec(sink *Sink) ProductionSpec {
	return ProductionSpec{Objects: 120, Events: 400, Burst: 40, Workers: 3, Work: 200,
		FailPermille: 100, Retry: DefaultRetry, Sink: sink}
}

// checkProduction checks that a production run did what it claims on the queue rec recorded:
// every key reconciled after its last add, every retry served, the counts consistent.
func checkProduction(t *testing.T, spec ProductionSpec, res ProductionResult, rec *keyRecorder) {
	t.Helper()
	isAdd := func(e keyEvent) bool {
		return e.op == "Add" || e.op == "AddWithOpts" && e.opts.After == 0 && !e.opts.RateLimited
	}
	isRetry := func(e keyEvent) bool { return e.op == "AddRateLimited" || e.op == "AddWithOpts" && e.opts.RateLimited }
	isRequeue := func(e keyEvent) bool { return e.op == "AddWithOpts" && e.opts.After > 0 }
	if n := rec.count(isAdd); n != spec.Events {
		t.Errorf("the producer added %d keys, want %d", n, spec.Events)
	}
	added := map[string]bool{}
	for _, e := range rec.events {
		if isAdd(e) {
			added[e.key] = true
		}
	}
	if len(added) != spec.Objects {
		t.Errorf("%d distinct keys were added, want every one of the %d objects", len(added), spec.Objects)
	}
	for _, what := range []struct {
		name string
		is   func(keyEvent) bool
	}{{"add", isAdd}, {"retry", isRetry}, {"requeue", isRequeue}} {
		if left := rec.unserved(what.is); len(left) > 0 {
			t.Errorf("%d %ss were never followed by a Get of their key, the first of %q", len(left), what.name, left[0].key)
		}
	}
	gets, retries, requeues := rec.count(func(e keyEvent) bool { return e.op == "Get" }), rec.count(isRetry), rec.count(isRequeue)
	forgets := rec.count(func(e keyEvent) bool { return e.op == "Forget" })
	if int64(gets) != res.Reconciles || int64(retries) != res.Failures || int64(requeues) != res.Requeues {
		t.Errorf("the queue saw %d Gets, %d retries and %d requeues; the result says %d reconciles, %d failures, %d requeues",
			gets, retries, requeues, res.Reconciles, res.Failures, res.Requeues)
	}
	if int64(forgets) != res.Reconciles-res.Failures {
		t.Errorf("%d Forgets, want one per reconcile that did not fail: %d", forgets, res.Reconciles-res.Failures)
	}
	if res.Failures == 0 {
		t.Error("no reconcile failed")
	}
	if !res.CPUKnown || res.CPU <= 0 {
		t.Errorf("CPU = %v (known %v), want the process's CPU time over the run", res.CPU, res.CPUKnown)
	}
}

// gathered returns the value of the counter family of reg whose series has the label
// name=queue, or -1 if there is none.
func gathered(t *testing.T, reg prometheus.Gatherer, family, queue string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
		for _, m := range f.GetMetric() {
			if slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == "name" && l.GetValue() == queue }) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return -1
}

// recordsIn returns where the named queues of impl record with a Sink of reg: each where its
// library's wiring puts it (see Sink.Registry).
func recordsIn(impl Impl, reg *prometheus.Registry) prometheus.Gatherer {
	switch {
	case impl.Name == "client-go":
		return legacyregistry.DefaultGatherer
	case impl.NewPrioritized != nil:
		return crmetrics.Registry
	}
	return reg
}

func TestProductionWithAtomicMetrics(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				metrics := new(AtomicMetrics)
				spec := productionSpec(&Sink{Atomic: metrics})
				recorded, queues := recordingKeys(impl)
				res, ok := Production(recorded, spec)
				if !ok || len(queues()) != 1 {
					t.Fatalf("Production ran %v on %d queues, want one", ok, len(queues()))
				}
				checkProduction(t, spec, res, queues()[0])
				if res.Name == "" {
					t.Error("the queue has no name")
				}
				if got := metrics.Adds.Load(); got < int64(spec.Objects) {
					t.Errorf("the adds counter counted %d, want at least one per object (%d)", got, spec.Objects)
				}
				if metrics.Retries.Load() == 0 || metrics.Latency.Count.Load() == 0 || metrics.Work.Count.Load() == 0 {
					t.Errorf("retries %d, queue-duration observations %d, work-duration observations %d: want each above 0",
						metrics.Retries.Load(), metrics.Latency.Count.Load(), metrics.Work.Count.Load())
				}
			})
		})
	}
}

func TestProductionWithPrometheus(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reg := prometheus.NewRegistry()
				spec := productionSpec(&Sink{Registry: reg})
				recorded, queues := recordingKeys(impl)
				res, _ := Production(recorded, spec)
				checkProduction(t, spec, res, queues()[0])
				where := recordsIn(impl, reg)
				if adds := gathered(t, where, "workqueue_adds_total", res.Name); adds < float64(spec.Objects) {
					t.Errorf("workqueue_adds_total{name=%q} = %v, want at least one per object (%d)", res.Name, adds, spec.Objects)
				}
				if retries := gathered(t, where, "workqueue_retries_total", res.Name); retries <= 0 {
					t.Errorf("workqueue_retries_total{name=%q} = %v, want the retries counted", res.Name, retries)
				}
			})
		})
	}
}

func TestProductionWithPriorities(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				spec := productionSpec(nil)
				spec.Priorities, spec.RequeuePermille = true, 100
				recorded, queues := recordingKeys(impl)
				res, ok := Production(recorded, spec)
				if impl.NewPrioritized == nil {
					if ok || len(queues()) > 0 {
						t.Errorf("Production ran on a queue without priorities")
					}
					return
				}
				rec := queues()[0]
				checkProduction(t, spec, res, rec)
				if res.Requeues == 0 {
					t.Error("no reconcile asked for a RequeueAfter")
				}
				at := func(p int) func(keyEvent) bool {
					return func(e keyEvent) bool { return e.op == "AddWithOpts" && e.opts.Priority != nil && *e.opts.Priority == p }
				}
				if low := rec.count(at(-100)); low < spec.Objects {
					t.Errorf("%d adds at low priority, want at least the initial list's %d", low, spec.Objects)
				}
				if rec.count(at(10)) == 0 {
					t.Error("no add at high priority")
				}
				if adds := gathered(t, crmetrics.Registry, "workqueue_adds_total", res.Name); adds < float64(spec.Objects) {
					t.Errorf("workqueue_adds_total{name=%q} in controller-runtime's registry = %v, want at least %d", res.Name, adds, spec.Objects)
				}
			})
		})
	}
}

// A busy process: the spinners run while the queue works, and stop. Outside a synctest bubble,
// whose clock would never move while they spin; with no failures, nothing waits for time.
func TestProductionInABusyProcess(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			spec := productionSpec(&Sink{Atomic: new(AtomicMetrics)})
			spec.FailPermille, spec.Busy = 0, 2
			recorded, queues := recordingKeys(impl)
			res, _ := Production(recorded, spec)
			rec := queues()[0]
			if left := rec.unserved(func(e keyEvent) bool { return e.op == "Add" }); len(left) > 0 {
				t.Errorf("%d adds were never followed by a Get of their key", len(left))
			}
			if res.Spins == 0 {
				t.Error("the busy goroutines did not spin")
			}
		})
	}
}

func TestInformerEvents(t *testing.T) {
	events := InformerEvents(100, 1000, 20)
	if len(events) != 1000 {
		t.Fatalf("%d events, want 1000", len(events))
	}
	for k := range 100 {
		if events[k] != k {
			t.Fatalf("event %d is object %d: the initial list must add every object in order", k, events[k])
		}
	}
	withinBurst := 0
	for from := 100; from < len(events); from += 20 {
		burst := events[from : from+20]
		if slices.Min(burst) < 0 || slices.Max(burst) >= 100 {
			t.Fatalf("burst at %d has keys out of range: %v", from, burst)
		}
		withinBurst += len(burst) - len(slices.Compact(slices.Sorted(slices.Values(burst))))
	}
	if withinBurst == 0 {
		t.Error("no key repeats within a burst")
	}
	if !slices.Equal(events, InformerEvents(100, 1000, 20)) {
		t.Error("two calls gave different events: the seed must be fixed")
	}
}

// A run cut short by its deadline stops at the deadline, says so, and leaves nothing running.
func TestProductionStopsAtTheDeadline(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				spec := productionSpec(nil)
				// Every key fails three times: draining takes 5+10+20 ms of back-offs.
				spec.FailPermille, spec.Deadline = 1000, 10*time.Millisecond
				res, _ := Production(impl, spec)
				if res.Drained || res.Elapsed != spec.Deadline {
					t.Errorf("Drained %v after %v, want a run cut short at the deadline, %v", res.Drained, res.Elapsed, spec.Deadline)
				}
				if res.Reconciles == 0 || res.Failures == 0 {
					t.Errorf("%d reconciles, %d failures before the deadline; want some of each", res.Reconciles, res.Failures)
				}
			})
		})
	}
}
