package main

import (
	"fmt"
	"math"
	"time"

	"github.com/actorqueue/workqueue/stress/bench"
)

// Issue 35's rows: the controller shapes where actorqueue's queues were behind, each named and
// recording Prometheus metrics through its library's own wiring (bench.Sink.Registry). Rows
// D: duplicate-heavy bursts from two informers; row M: a thousand workers that wait as for an
// API call. Issue 35's other shapes are rows of their own already: CPU-bound neighbours P2
// (with their p99 in P2c and P2d), steady 100k items/s P3g to P3l, p99 at a steady rate 8b,
// and the 1×1 cycle row 1.
const (
	// dupProducers add the keys of rows D, each its own stream.
	dupProducers = 2
	// dupBurst adds of a producer are drawn from a window of dupWindow consecutive objects, so
	// that each key of a burst is added about three times, and a producer starts its next burst
	// once at most dupWindow keys are owed a reconcile.
	dupBurst, dupWindow = 768, 256
	// manyWorkers reconcile in row M, each spending manyWork of CPU, then waiting manyWait.
	manyWorkers = 1000
	manyWork    = 20 * time.Microsecond
	manyWait    = 200 * time.Microsecond
)

// dupShape is one of rows D's two shapes.
type dupShape struct {
	workers      int
	work         time.Duration
	failPermille int
}

// dupShapes are rows D1 and D2: issue 35's duplicate-heavy bursts with 8 workers, 5µs
// reconciles, 2% retried, and with 32 workers, 20µs reconciles, 5% retried.
var dupShapes = []dupShape{{8, 5 * time.Microsecond, 20}, {32, 20 * time.Microsecond, 50}}

// shapePlan returns the experiments of rows D and M in mode m.
func shapePlan(m mode) []experiment {
	millis := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	// cpu returns the process's CPU time over a run, in ms, NaN where unknown.
	cpu := func(res bench.ProductionResult) float64 {
		if !res.CPUKnown {
			return math.NaN()
		}
		return millis(res.CPU)
	}
	var out []experiment
	for i, shape := range dupShapes {
		id := func(letter string) string { return fmt.Sprintf("D%d%s", i+1, letter) }
		title := fmt.Sprintf("duplicate-heavy bursts: %s keys added %d times each on average by %d producers (bursts of %d adds from %d keys), %d workers, %v CPU per reconcile, %d%% retried, named, Prometheus: wall time",
			thousands(m.dupObjects), m.dupAdds/m.dupObjects, dupProducers, dupBurst, dupWindow, shape.workers, shape.work, shape.failPermille/10)
		out = append(out, experiment{name: fmt.Sprintf("duplicate-heavy bursts, %d workers", shape.workers), rows: []row{
			{id: id("a"), title: title, unit: "ms", better: lowerIsBetter},
			{id: id("b"), title: "the same: process CPU per run", unit: "ms", better: lowerIsBetter},
			{id: id("c"), title: "the same: Add-to-Get latency p99", unit: "µs", better: lowerIsBetter},
		}, measure: func(impl bench.Impl) []float64 {
			res, _ := bench.Production(impl, bench.ProductionSpec{Objects: m.dupObjects, Events: m.dupAdds,
				Producers: dupProducers, Burst: dupBurst, Window: dupWindow, Backlog: dupWindow,
				Workers: shape.workers, Work: bench.WorkFor(shape.work), FailPermille: shape.failPermille,
				Retry: bench.DefaultRetry, Sink: prometheusMetrics.sink()})
			return []float64{millis(res.Elapsed), cpu(res), p99(res.Latencies)}
		}})
	}
	out = append(out, experiment{name: "1,000 workers", rows: []row{
		{id: "Ma", title: fmt.Sprintf("%s distinct keys added at once, %s workers, %v CPU and a %v wait per reconcile, named, Prometheus",
			thousands(m.manyKeys), thousands(manyWorkers), manyWork, manyWait), unit: "items/s", better: higherIsBetter, throughput: true},
		{id: "Mb", title: "the same: process CPU per item", unit: "µs", better: lowerIsBetter},
	}, measure: func(impl bench.Impl) []float64 {
		res, _ := bench.Production(impl, bench.ProductionSpec{Objects: m.manyKeys, Events: m.manyKeys,
			Burst: m.manyKeys, Workers: manyWorkers, Work: bench.WorkFor(manyWork), Wait: manyWait,
			Retry: bench.DefaultRetry, Sink: prometheusMetrics.sink()})
		return []float64{float64(m.manyKeys) / res.Elapsed.Seconds(), 1000 * cpu(res) / float64(m.manyKeys)}
	}})
	return out
}
