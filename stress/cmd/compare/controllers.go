package main

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/actorqueue/workqueue/stress/bench"
)

// Issue 26's rows: queues as controllers run them (bench.Production, bench.Steady).
const (
	// workers reconcile in rows P1, P2 and P4.
	workers = 8
	// failPermille of the reconciles fail and are retried, in rows P1, P2 and P4.
	failPermille = 20
	// requeuePermille of the successful reconciles of row P4 ask for a RequeueAfter.
	requeuePermille = 20
	// burst is how many adds the producer of rows P1, P2 and P4 makes at once.
	burst = 256
)

// The CPU a reconcile spends in rows P1, P2 and P4: a few µs, and tens of µs.
const (
	shortWork = 5 * time.Microsecond
	longWork  = 50 * time.Microsecond
)

// sinkKind is where the named queues of a row record their metrics.
type sinkKind int

const (
	unnamed           sinkKind = iota // no name, no metrics
	atomicMetrics                     // bench.AtomicMetrics
	prometheusMetrics                 // Prometheus: a fresh registry per run, or controller-runtime's
)

// sink returns a new sink of kind k for one run, nil for unnamed.
func (k sinkKind) sink() *bench.Sink {
	switch k {
	case atomicMetrics:
		return &bench.Sink{Atomic: new(bench.AtomicMetrics)}
	case prometheusMetrics:
		return &bench.Sink{Registry: prometheus.NewRegistry()}
	}
	return nil
}

func (k sinkKind) String() string {
	switch k {
	case atomicMetrics:
		return "atomic metrics"
	case prometheusMetrics:
		return "Prometheus metrics"
	}
	return "unnamed"
}

// controllerPlan returns the experiments of rows P1 to P4 in mode m.
func controllerPlan(m mode) []experiment {
	production := func(cpu time.Duration, k sinkKind) bench.ProductionSpec {
		return bench.ProductionSpec{Objects: m.objects, Events: m.events, Burst: burst, Workers: workers,
			Work: bench.WorkFor(cpu), FailPermille: failPermille, Retry: bench.DefaultRetry, Sink: k.sink()}
	}
	reconcilesPerSecond := func(res bench.ProductionResult) float64 {
		return float64(res.Reconciles) / res.Elapsed.Seconds()
	}
	cpuPerReconcile := func(res bench.ProductionResult) float64 {
		if !res.CPUKnown {
			return math.NaN()
		}
		return micros(res.CPU) / float64(res.Reconciles)
	}
	var out []experiment

	letter := 'a'
	for _, k := range []sinkKind{atomicMetrics, prometheusMetrics} {
		for _, cpu := range []time.Duration{shortWork, longWork} {
			title := fmt.Sprintf("named queue, %s, %d workers, %v CPU per reconcile, %d%% retried", k, workers, cpu, failPermille/10)
			out = append(out, experiment{name: fmt.Sprintf("production, %s, %v", k, cpu), rows: []row{
				{id: "P1" + string(letter), title: title, unit: "reconciles/s", better: higherIsBetter, throughput: true},
				{id: "P1" + string(letter+1), title: "the same: process CPU per reconcile", unit: "µs", better: lowerIsBetter},
			}, measure: func(impl bench.Impl) []float64 {
				res, _ := bench.Production(impl, production(cpu, k))
				return []float64{reconcilesPerSecond(res), cpuPerReconcile(res)}
			}})
			letter += 2
		}
	}

	// Row P2, named and unnamed in one experiment, so that the table lists the throughputs
	// (P2a, P2b), then the p99s of the same runs (P2c, P2d).
	busyRun := func(impl bench.Impl, k sinkKind) bench.ProductionResult {
		spec := production(shortWork, k)
		spec.Busy, spec.Deadline = runtime.GOMAXPROCS(0), m.busyDeadline
		res, _ := bench.Production(impl, spec)
		return res
	}
	out = append(out, experiment{name: "busy process", rows: []row{
		{id: "P2a", title: fmt.Sprintf("P1e with GOMAXPROCS goroutines spinning in the process (runs cut at %v)", m.busyDeadline), unit: "reconciles/s", better: higherIsBetter, throughput: true},
		{id: "P2b", title: "the same, unnamed, no metrics", unit: "reconciles/s", better: higherIsBetter, throughput: true},
		{id: "P2c", title: "P2a: Add-to-Get latency p99", unit: "µs", better: lowerIsBetter},
		{id: "P2d", title: "P2b: Add-to-Get latency p99", unit: "µs", better: lowerIsBetter},
	}, measure: func(impl bench.Impl) []float64 {
		named, plain := busyRun(impl, prometheusMetrics), busyRun(impl, unnamed)
		return []float64{reconcilesPerSecond(named), reconcilesPerSecond(plain), p99(named.Latencies), p99(plain.Latencies)}
	}})

	letter = 'a'
	for _, load := range []struct {
		rate, workers int
		cpu           time.Duration
	}{{20_000, 4, 10 * time.Microsecond}, {100_000, 8, 2 * time.Microsecond}} {
		for _, k := range []sinkKind{prometheusMetrics, unnamed} {
			queue := "named (Prometheus)"
			if k == unnamed {
				queue = "unnamed"
			}
			id := func(n int) string { return "P3" + string(letter+rune(n)) }
			out = append(out, experiment{name: fmt.Sprintf("steady %dk/s, %s", load.rate/1000, k), rows: []row{
				{id: id(0), title: fmt.Sprintf("steady %dk items/s, %d workers, %v CPU each, %s: CPU per item", load.rate/1000, load.workers, load.cpu, queue), unit: "µs", better: lowerIsBetter},
				{id: id(1), title: "the same: Add-to-Get latency p50", unit: "µs", better: lowerIsBetter},
				{id: id(2), title: "the same: Add-to-Get latency p99", unit: "µs", better: lowerIsBetter},
			}, measure: func(impl bench.Impl) []float64 {
				res := bench.Steady(impl, bench.SteadySpec{Rate: load.rate, Duration: m.steadyDuration,
					Workers: load.workers, Work: bench.WorkFor(load.cpu), Sink: k.sink()})
				cpu := math.NaN()
				if res.CPUKnown {
					cpu = micros(res.CPU) / float64(res.Items)
				}
				return []float64{cpu, micros(bench.Quantile(res.Latencies, 0.5)), micros(bench.Quantile(res.Latencies, 0.99))}
			}})
			letter += 3
		}
	}

	out = append(out, experiment{name: "priorities", rows: []row{
		{id: "P4a", title: fmt.Sprintf("P1e on the priority queues, with priorities and %d%% RequeueAfter", requeuePermille/10), unit: "reconciles/s", better: higherIsBetter, throughput: true},
		{id: "P4b", title: "the same: process CPU per reconcile", unit: "µs", better: lowerIsBetter},
	}, measure: func(impl bench.Impl) []float64 {
		spec := production(shortWork, unnamed)
		spec.Priorities, spec.RequeuePermille = true, requeuePermille
		res, ok := bench.Production(impl, spec)
		if !ok {
			return []float64{math.NaN(), math.NaN()}
		}
		return []float64{reconcilesPerSecond(res), cpuPerReconcile(res)}
	}})
	return out
}
