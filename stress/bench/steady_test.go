package bench

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestSteadyOffersTheRate(t *testing.T) {
	for _, named := range []bool{false, true} {
		for _, impl := range Impls() {
			t.Run(impl.Name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					spec := SteadySpec{Rate: 2000, Duration: 50 * time.Millisecond, Workers: 2, Work: 100}
					reg := prometheus.NewRegistry()
					if named {
						spec.Sink = &Sink{Registry: reg}
					}
					recorded, queues := recordingKeys(impl)
					res := Steady(recorded, spec)
					if res.Items != 100 || len(res.Latencies) != 100 {
						t.Fatalf("%d items, %d latencies; want 100 of each", res.Items, len(res.Latencies))
					}
					// In the bubble, idle workers get each item at the instant it is added.
					if res.Latencies[99] != 0 {
						t.Errorf("the largest latency is %v, want 0 with idle workers and no time passing", res.Latencies[99])
					}
					rec := queues()[0]
					var adds []time.Time
					for _, e := range rec.events {
						if e.op == "Add" {
							adds = append(adds, e.at)
						}
					}
					if len(adds) != 100 || rec.count(func(e keyEvent) bool { return e.op == "Get" }) != 100 {
						t.Fatalf("%d Adds and %d Gets, want 100 of each", len(adds), rec.count(func(e keyEvent) bool { return e.op == "Get" }))
					}
					for i := 1; i < len(adds); i++ {
						if gap := adds[i].Sub(adds[i-1]); gap != 500*time.Microsecond {
							t.Fatalf("Adds %d and %d are %v apart, want 500µs (2000 items/s)", i-1, i, gap)
						}
					}
					if !res.CPUKnown {
						t.Error("the process's CPU time is not known")
					}
					if !named {
						return
					}
					if got := gathered(t, recordsIn(impl, reg), "workqueue_adds_total", res.Name); got != 100 {
						t.Errorf("workqueue_adds_total{name=%q} = %v, want 100", res.Name, got)
					}
				})
			})
		}
	}
}

func TestWorkForScalesWithTheDuration(t *testing.T) {
	if WorkFor(0) != 0 {
		t.Errorf("WorkFor(0) = %d, want 0", WorkFor(0))
	}
	one, hundred := WorkFor(time.Microsecond), WorkFor(100*time.Microsecond)
	if one < 1 || hundred < 50*one || hundred > 200*one {
		t.Errorf("WorkFor(1µs) = %d, WorkFor(100µs) = %d rounds: want at least 1, and about 100 times as many", one, hundred)
	}
	if Spend("a/b", 1000) != Spend("a/b", 1000) || Spend("a/b", 1000) == Spend("a/c", 1000) {
		t.Error("Spend must depend on its key, and only on it and the rounds")
	}
}
