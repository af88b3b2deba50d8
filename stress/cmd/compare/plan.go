package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/actorqueue/workqueue/stress/bench"
)

// row is one line of the table: a figure measured for every implementation.
type row struct {
	id, title string
	// unit names the figure's unit: "items/s", "µs", "B", ...
	unit   string
	better better
	// targets are issue 5's targets for actorqueue on this row.
	targets []target
	// throughput puts the row in the chart.
	throughput bool
}

// target is one of issue 5's targets for actorqueue on a row: at least ratio times better
// than peer, or, with no peer, a median of at most atMost.
type target struct {
	peer   string
	ratio  float64
	atMost float64
}

// String writes the target as the table shows it.
func (t target) String() string {
	if t.peer == "" {
		if t.atMost == 0 {
			return "= 0"
		}
		return fmt.Sprintf("≤ %g", t.atMost)
	}
	return fmt.Sprintf("≥ %g× %s", t.ratio, t.peer)
}

// experiment is one measurement run that fills one or more rows.
type experiment struct {
	name string
	rows []row
	// once marks a deterministic measurement: one round and no warm-up.
	once bool
	// measure runs once for one implementation and returns one figure per row, NaN where the
	// implementation cannot take part.
	measure func(impl bench.Impl) []float64
}

// The implementations' names, as bench names them.
const (
	actorQueue         = "actorqueue"
	clientGo           = "client-go"
	actorQueuePriority = "actorqueue priority"
	ctrlRT             = "controller-runtime"
)

// ahead is the default target of a row: at least factor times better than both peers.
func ahead(factor float64) []target {
	return []target{{peer: clientGo, ratio: factor}, {peer: ctrlRT, ratio: factor}}
}

// plan returns every experiment of a run in mode m. wakeups gives the figures measured in the
// wake-up child process.
func plan(m mode, wakeups func(impl string) wakeupFigures) []experiment {
	perSecond := func(items int, d time.Duration) float64 { return float64(items) / d.Seconds() }
	cycle := func(producers, workers int) func(bench.Impl) []float64 {
		return func(impl bench.Impl) []float64 {
			r := bench.Cycle(impl, bench.CycleSpec{Items: m.cycleItems, Producers: producers, Workers: workers})
			return []float64{perSecond(m.cycleItems, r.Elapsed)}
		}
	}
	withStringKeys := func(measure func(bench.Impl) []float64) func(bench.Impl) []float64 {
		return func(impl bench.Impl) []float64 {
			return measure(bench.WithStringKeys(impl, bench.ObjectKeys(m.cycleItems)))
		}
	}
	throughputRow := func(id, title, unit string, factor float64) row {
		return row{id: id, title: title, unit: unit, better: higherIsBetter, targets: ahead(factor), throughput: true}
	}
	// stringRow is a throughput row on string keys: issue 5 sets it no target.
	stringRow := func(id, title string) row {
		return row{id: id, title: title, unit: "items/s", better: higherIsBetter, throughput: true}
	}
	var kindRows, wakeRows []row
	for i, k := range bench.Kinds {
		letter := string(rune('a' + i))
		kindRows = append(kindRows, row{id: "G" + letter, title: "goroutines per live queue: " + k.String(),
			unit: "goroutines", better: lowerIsBetter, targets: []target{{atMost: 1}}})
		wakeRows = append(wakeRows, row{id: "W" + letter, title: "timer wake-ups per minute, one idle queue: " + k.String(),
			unit: "wake-ups/min", better: lowerIsBetter, targets: []target{{atMost: 0}}})
	}

	return append([]experiment{
		{name: "cycle 1×1", rows: []row{throughputRow("1", "Add/Get/Done, 1 producer, 1 worker, distinct keys", "items/s", 1)},
			measure: cycle(1, 1)},
		{name: "cycle 8×8", rows: []row{throughputRow("2", "Add/Get/Done, 8 producers, 8 workers", "items/s", 1)},
			measure: cycle(8, 8)},
		{name: "cycle 64×64", rows: []row{throughputRow("3", "Add/Get/Done, 64 producers, 64 workers", "items/s", 1)},
			measure: cycle(64, 64)},
		{name: "cycle 1×1, string keys", rows: []row{stringRow("1s", `row 1 with string keys ("namespace-7/object-57")`)},
			measure: withStringKeys(cycle(1, 1))},
		{name: "cycle 8×8, string keys", rows: []row{stringRow("2s", "row 2 with string keys")},
			measure: withStringKeys(cycle(8, 8))},
		{name: "hot keys", rows: []row{throughputRow("4", "1000 hot keys re-added while processed, 8×8 (producer Adds until all served)", "adds/s", 1)},
			measure: func(impl bench.Impl) []float64 {
				d := bench.HotKeys(impl, bench.HotKeySpec{Adds: m.hotAdds, Keys: 1000, Producers: 8, Workers: 8})
				return []float64{perSecond(m.hotAdds, d)}
			}},
		{name: "AddAfter flood", rows: []row{throughputRow("5", fmt.Sprintf("AddAfter flood: %dk items, delays 0–50 ms, 8×8, until all processed", m.floodItems/1000), "items/s", 2)},
			measure: func(impl bench.Impl) []float64 {
				d := bench.Flood(impl, bench.FloodSpec{Items: m.floodItems, MaxDelay: 50 * time.Millisecond, Producers: 8, Workers: 8})
				return []float64{perSecond(m.floodItems, d)}
			}},
		{name: "retry loop", rows: []row{throughputRow("6", fmt.Sprintf("retry loop: %dk items fail 3× (AddRateLimited, 5/10/20 ms), then Forget; 8 workers", m.retryItems/1000), "Gets/s", 2)},
			measure: func(impl bench.Impl) []float64 {
				d := bench.RetryLoop(impl, bench.RetrySpec{Items: m.retryItems, Failures: 3, Workers: 8, Retry: bench.DefaultRetry})
				return []float64{perSecond(4*m.retryItems, d)}
			}},
		{name: "idle queues", rows: []row{
			{id: "7a", title: thousands(m.idleQueues) + " idle rate-limiting queues: bytes per queue", unit: "B", better: lowerIsBetter, targets: ahead(1)},
			{id: "7b", title: thousands(m.idleQueues) + " idle rate-limiting queues: goroutines per queue", unit: "goroutines", better: lowerIsBetter, targets: []target{{atMost: 1}}},
		}, measure: func(impl bench.Impl) []float64 {
			f := bench.MeasureFootprint(impl, bench.RateLimiting, m.idleQueues)
			return []float64{f.BytesPerQueue, f.GoroutinesPerQueue}
		}},
		{name: "idle wake-ups", once: true, rows: []row{
			{id: "7c", title: thousands(m.idleQueues) + " idle rate-limiting queues: timer wake-ups per minute, all queues", unit: "wake-ups/min", better: lowerIsBetter, targets: []target{{atMost: 0}}},
		}, measure: func(impl bench.Impl) []float64 { return []float64{wakeups(impl.Name).Many} }},
		{name: "latency", rows: []row{
			{id: "8a", title: fmt.Sprintf("Add-to-Get latency p50, %.0fk items/s steady, 4 workers", 1/m.latencyInterval.Seconds()/1000), unit: "µs", better: lowerIsBetter, targets: ahead(1)},
			{id: "8b", title: "Add-to-Get latency p99, same load", unit: "µs", better: lowerIsBetter, targets: ahead(1)},
		}, measure: func(impl bench.Impl) []float64 {
			lat := bench.Latency(impl, bench.LatencySpec{Items: m.latencyItems, Interval: m.latencyInterval, Workers: 4})
			return []float64{micros(bench.Quantile(lat, 0.5)), micros(bench.Quantile(lat, 0.99))}
		}},
		{name: "observers", rows: []row{
			throughputRow("9a", "row 2 with 1 observer calling Len and ShuttingDown in a loop", "items/s", 1),
			throughputRow("9b", "the observer's Len and ShuttingDown calls meanwhile", "calls/s", 1),
		}, measure: func(impl bench.Impl) []float64 {
			r := bench.Cycle(impl, bench.CycleSpec{Items: m.cycleItems, Producers: 8, Workers: 8, Observers: 1})
			return []float64{perSecond(m.cycleItems, r.Elapsed), float64(r.ObserverCalls) / r.Elapsed.Seconds()}
		}},
		{name: "goroutines per kind", once: true, rows: kindRows, measure: func(impl bench.Impl) []float64 {
			var out []float64
			for _, k := range bench.Kinds {
				out = append(out, bench.MeasureFootprint(impl, k, m.kindQueues).GoroutinesPerQueue)
			}
			return out
		}},
		{name: "after ShutDown", rows: []row{
			{id: "S", title: fmt.Sprintf("goroutines per delaying queue right after ShutDown returns (mean of %d)", m.shutdownQueues), unit: "goroutines", better: lowerIsBetter, targets: []target{{atMost: 0}}},
		}, measure: func(impl bench.Impl) []float64 {
			return []float64{bench.MeasureAfterShutDown(impl, bench.Delaying, m.shutdownQueues).Left}
		}},
		{name: "idle wake-ups per kind", once: true, rows: wakeRows, measure: func(impl bench.Impl) []float64 {
			return wakeups(impl.Name).PerKind
		}},
		{name: "bytes per item", rows: []row{
			{id: "B", title: fmt.Sprintf("bytes per queued item (%dk distinct int keys, no worker, at rest; actorqueue's waiting set %.0f%% full)",
				m.queuedItems/1000, 100*waitingSetLoad(m.queuedItems)), unit: "B", better: lowerIsBetter},
		}, measure: func(impl bench.Impl) []float64 { return []float64{bench.BytesPerItem(impl, m.queuedItems)} }},
		{name: "allocations", rows: []row{
			{id: "A", title: "allocations per Add/Get/Done cycle, one goroutine", unit: "allocs", better: lowerIsBetter, targets: []target{{peer: clientGo, ratio: 1}}},
		}, measure: func(impl bench.Impl) []float64 { return []float64{bench.AllocsPerCycle(impl, m.allocCycles)} }},
	}, slices.Concat(controllerPlan(m), shapePlan(m), groupPlan(m), burstPlan(m))...)
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// selected returns the experiments with a row whose id starts with one of the comma-separated
// prefixes of only; every experiment when only is empty.
func selected(experiments []experiment, only string) []experiment {
	if only == "" {
		return experiments
	}
	prefixes := strings.Split(only, ",")
	return slices.DeleteFunc(slices.Clone(experiments), func(exp experiment) bool {
		return !slices.ContainsFunc(exp.rows, func(r row) bool {
			return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(r.id, p) })
		})
	})
}

// waitingSetLoad returns how full actorqueue's set of waiting items is with n items in it:
// its table (internal/table) has the fewest slots, a power of two, that hold n at most three
// quarters full. Row B's figure depends on it: just past a doubling, half the slots are empty.
func waitingSetLoad(n int) float64 {
	slots := 8
	for 4*n > 3*slots {
		slots *= 2
	}
	return float64(n) / float64(slots)
}

// p99 returns the 99th percentile of sorted latencies, in µs, or NaN when there are none.
func p99(sorted []time.Duration) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return micros(bench.Quantile(sorted, 0.99))
}
