package bench

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// onlyOnce checks that keys 0..n-1, and no other, went through op once each.
func onlyOnce(t *testing.T, rec *recorder, op string, n int) {
	t.Helper()
	counts := rec.counts(op)
	if len(counts) != n {
		t.Errorf("%d distinct keys went through %s, want %d", len(counts), op, n)
	}
	for key := 0; key < n; key++ {
		if counts[key] != 1 {
			t.Errorf("key %d went through %s %d times, want once", key, op, counts[key])
		}
	}
}

// forEachImpl runs test in a synctest bubble for each implementation, recording its queues.
func forEachImpl(t *testing.T, test func(t *testing.T, impl Impl, queues func() []*recorder)) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec, queues := recording(impl)
				test(t, rec, queues)
				if n := len(queues()); n != 1 {
					t.Errorf("the workload made %d queues, want 1", n)
				}
			})
		})
	}
}

func TestCycleProcessesEveryKeyOnce(t *testing.T) {
	forEachImpl(t, func(t *testing.T, impl Impl, queues func() []*recorder) {
		result := Cycle(impl, CycleSpec{Items: 300, Producers: 3, Workers: 2, Observers: 1})
		rec := queues()[0]
		for _, op := range []string{"Add", "Get", "Done"} {
			onlyOnce(t, rec, op, 300)
		}
		if result.ObserverCalls != 2*int64(rec.len) {
			t.Errorf("ObserverCalls = %d, want twice the %d Len calls the queue saw", result.ObserverCalls, rec.len)
		}
	})
}

func TestHotKeysServesEveryAdd(t *testing.T) {
	forEachImpl(t, func(t *testing.T, impl Impl, queues func() []*recorder) {
		HotKeys(impl, HotKeySpec{Adds: 2000, Keys: 20, Producers: 3, Workers: 2})
		rec := queues()[0]
		lastAdd, lastGet := map[int]int{}, map[int]int{}
		processing := map[int]bool{}
		readds := 0
		for i, e := range rec.events {
			switch e.op {
			case "Add":
				lastAdd[e.key] = i
				if processing[e.key] {
					readds++
				}
			case "Get":
				lastGet[e.key] = i
				processing[e.key] = true
			case "Done":
				processing[e.key] = false
			}
		}
		if len(lastAdd) != 20 {
			t.Errorf("%d keys were added, want all 20", len(lastAdd))
		}
		for key, add := range lastAdd {
			if get, ok := lastGet[key]; !ok || get < add {
				t.Errorf("key %d: last Add at event %d, last Get at %d (ok %v): the run ended before serving it", key, add, get, ok)
			}
		}
		if readds == 0 {
			t.Error("no key was re-added while being processed")
		}
	})
}

func TestFloodEndsWithTheLongestDelay(t *testing.T) {
	spec := FloodSpec{Items: 500, MaxDelay: 50 * time.Millisecond, Producers: 3, Workers: 2}
	longest := slices.Max(floodDelays(spec))
	if longest < 49*time.Millisecond {
		t.Fatalf("the longest of 500 random delays is %v; the delays do not span [0, 50ms]", longest)
	}
	forEachImpl(t, func(t *testing.T, impl Impl, queues func() []*recorder) {
		// In the bubble, processing takes no time: the run lasts exactly the longest delay.
		if got := Flood(impl, spec); got != longest {
			t.Errorf("Flood took %v, want the longest delay %v", got, longest)
		}
		onlyOnce(t, queues()[0], "AddAfter", 500)
		onlyOnce(t, queues()[0], "Get", 500)
	})
}

func TestRetryLoopBacksOffThenForgets(t *testing.T) {
	spec := RetrySpec{Items: 50, Failures: 3, Workers: 4, Retry: Retry{Base: 5 * time.Millisecond, Max: time.Second}}
	forEachImpl(t, func(t *testing.T, impl Impl, queues func() []*recorder) {
		// In the bubble, processing takes no time: the run lasts the three back-offs.
		if got, want := RetryLoop(impl, spec), (5+10+20)*time.Millisecond; got != want {
			t.Errorf("RetryLoop took %v, want %v", got, want)
		}
		rec := queues()[0]
		gets, retries, forgets := rec.counts("Get"), rec.counts("AddRateLimited"), rec.counts("Forget")
		for key := 0; key < spec.Items; key++ {
			if gets[key] != 4 || retries[key] != 3 || forgets[key] != 1 {
				t.Errorf("key %d: %d Gets, %d AddRateLimited, %d Forget; want 4, 3, 1", key, gets[key], retries[key], forgets[key])
			}
		}
	})
}

func TestLatencyPacesTheProducer(t *testing.T) {
	spec := LatencySpec{Items: 100, Interval: 100 * time.Microsecond, Workers: 2}
	forEachImpl(t, func(t *testing.T, impl Impl, queues func() []*recorder) {
		latencies := Latency(impl, spec)
		if len(latencies) != spec.Items {
			t.Fatalf("Latency returned %d samples, want %d", len(latencies), spec.Items)
		}
		// In the bubble, idle workers get each item at the instant it is added.
		if latencies[len(latencies)-1] != 0 {
			t.Errorf("the largest latency is %v, want 0 with idle workers and no time passing", latencies[len(latencies)-1])
		}
		var adds []time.Time
		for _, e := range queues()[0].events {
			if e.op == "Add" {
				adds = append(adds, e.at)
			}
		}
		for i := 1; i < len(adds); i++ {
			if gap := adds[i].Sub(adds[i-1]); gap != spec.Interval {
				t.Fatalf("Adds %d and %d are %v apart, want %v", i-1, i, gap, spec.Interval)
			}
		}
	})
}

func TestQuantileIsNearestRank(t *testing.T) {
	sorted := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cases := []struct {
		q    float64
		want time.Duration
	}{{0, 1}, {0.1, 1}, {0.11, 2}, {0.5, 5}, {0.99, 10}, {1, 10}}
	for _, c := range cases {
		if got := Quantile(sorted, c.q); got != c.want {
			t.Errorf("Quantile(1..10, %v) = %v, want %v", c.q, got, c.want)
		}
	}
}
