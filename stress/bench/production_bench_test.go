package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The benchmarks of issue 26's rows P1 to P4, one sub-benchmark per implementation. An op is
// one whole run; each reports its figures with ReportMetric. For a profile of one
// implementation: go test -bench P1Prometheus5us/actorqueue$ -benchtime 20x -cpuprofile cpu.out

// benchProduction returns the production spec of the benchmarks: 2000 objects, 6000 events in
// bursts of 256, 8 workers spending cpu per reconcile, 2% failures.
func benchProduction(cpu time.Duration, sink func() *Sink) func() ProductionSpec {
	work := WorkFor(cpu)
	return func() ProductionSpec {
		return ProductionSpec{Objects: 2000, Events: 6000, Burst: 256, Workers: 8, Work: work,
			FailPermille: 20, Retry: DefaultRetry, Sink: sink()}
	}
}

func atomicSink() *Sink     { return &Sink{Atomic: new(AtomicMetrics)} }
func prometheusSink() *Sink { return &Sink{Registry: prometheus.NewRegistry()} }
func noSink() *Sink         { return nil }

// production runs a production spec per op and reports reconciles/s, the process's CPU time
// per reconcile, and reconciles per run (keys added again before their reconcile are
// reconciled once, so a queue that hands keys out sooner reconciles more).
func production(b *testing.B, spec func() ProductionSpec) {
	forEach(b, func(b *testing.B, impl Impl) {
		var elapsed, cpu time.Duration
		var reconciles int64
		for b.Loop() {
			res, ok := Production(impl, spec())
			if !ok {
				b.Skip("this implementation has no priorities")
			}
			elapsed += res.Elapsed
			cpu += res.CPU
			reconciles += res.Reconciles
		}
		b.ReportMetric(float64(reconciles)/elapsed.Seconds(), "reconciles/s")
		b.ReportMetric(float64(cpu.Microseconds())/float64(reconciles), "cpu-µs/reconcile")
		b.ReportMetric(float64(reconciles)/float64(b.N), "reconciles/op")
	})
}

func BenchmarkP1AtomicMetrics5us(b *testing.B) {
	production(b, benchProduction(5*time.Microsecond, atomicSink))
}
func BenchmarkP1AtomicMetrics50us(b *testing.B) {
	production(b, benchProduction(50*time.Microsecond, atomicSink))
}
func BenchmarkP1Prometheus5us(b *testing.B) {
	production(b, benchProduction(5*time.Microsecond, prometheusSink))
}
func BenchmarkP1Prometheus50us(b *testing.B) {
	production(b, benchProduction(50*time.Microsecond, prometheusSink))
}

// BenchmarkP1Unnamed5us is P1 without a name or metrics, which the comparison leaves out: set
// beside P1a and P1e, it tells what the metrics cost each queue.
func BenchmarkP1Unnamed5us(b *testing.B) {
	production(b, benchProduction(5*time.Microsecond, noSink))
}

// busy is P1 with as many goroutines as GOMAXPROCS spinning meanwhile.
func busy(spec func() ProductionSpec) func() ProductionSpec {
	return func() ProductionSpec {
		s := spec()
		s.Busy = runtime.GOMAXPROCS(0)
		return s
	}
}

func BenchmarkP2BusyPrometheus(b *testing.B) {
	production(b, busy(benchProduction(5*time.Microsecond, prometheusSink)))
}
func BenchmarkP2BusyUnnamed(b *testing.B) {
	production(b, busy(benchProduction(5*time.Microsecond, noSink)))
}

// BenchmarkP4Priorities: the priority queues only, named in controller-runtime's registry, with
// priorities and 2% RequeueAfter.
func BenchmarkP4Priorities(b *testing.B) {
	spec := benchProduction(5*time.Microsecond, noSink)
	production(b, func() ProductionSpec {
		s := spec()
		s.Priorities, s.RequeuePermille = true, 20
		return s
	})
}

// steady runs a steady spec per op and reports the p50 and p99 latencies and the CPU per item.
func steady(b *testing.B, rate, workers int, cpu time.Duration, sink func() *Sink) {
	work := WorkFor(cpu)
	forEach(b, func(b *testing.B, impl Impl) {
		var res SteadyResult
		var total time.Duration
		var items int
		for b.Loop() {
			res = Steady(impl, SteadySpec{Rate: rate, Duration: 200 * time.Millisecond, Workers: workers, Work: work, Sink: sink()})
			total += res.CPU
			items += res.Items
		}
		b.ReportMetric(float64(Quantile(res.Latencies, 0.5))/1e3, "p50-µs")
		b.ReportMetric(float64(Quantile(res.Latencies, 0.99))/1e3, "p99-µs")
		b.ReportMetric(float64(total.Microseconds())/float64(items), "cpu-µs/item")
	})
}

func BenchmarkP3Steady20kNamed(b *testing.B) {
	steady(b, 20_000, 4, 10*time.Microsecond, prometheusSink)
}
func BenchmarkP3Steady20kUnnamed(b *testing.B) { steady(b, 20_000, 4, 10*time.Microsecond, noSink) }
func BenchmarkP3Steady100kNamed(b *testing.B) {
	steady(b, 100_000, 8, 2*time.Microsecond, prometheusSink)
}
func BenchmarkP3Steady100kUnnamed(b *testing.B) { steady(b, 100_000, 8, 2*time.Microsecond, noSink) }
