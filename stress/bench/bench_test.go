package bench

import (
	"testing"
	"time"
)

// The benchmarks of issue 5's rows, one sub-benchmark per implementation: go test -bench .
// ./stress/bench/. Rows whose op is not one item report their figures with ReportMetric.

// forEach runs bench once per implementation.
func forEach(b *testing.B, bench func(b *testing.B, impl Impl)) {
	for _, impl := range Impls() {
		b.Run(impl.Name, func(b *testing.B) {
			b.ReportAllocs()
			bench(b, impl)
		})
	}
}

// cycles is rows 1, 2 and 3, and with stringKeys rows 1s and 2s: an op is one item's Add, Get
// and Done.
func cycles(b *testing.B, producers, workers int, stringKeys bool) {
	forEach(b, func(b *testing.B, impl Impl) {
		if stringKeys {
			impl = WithStringKeys(impl, ObjectKeys(b.N))
		}
		r := Cycle(impl, CycleSpec{Items: b.N, Producers: producers, Workers: workers})
		b.ReportMetric(float64(b.N)/r.Elapsed.Seconds(), "items/s")
	})
}

func BenchmarkRow1Cycle1x1(b *testing.B)            { cycles(b, 1, 1, false) }
func BenchmarkRow2Cycle8x8(b *testing.B)            { cycles(b, 8, 8, false) }
func BenchmarkRow3Cycle64x64(b *testing.B)          { cycles(b, 64, 64, false) }
func BenchmarkRow1sCycle1x1StringKeys(b *testing.B) { cycles(b, 1, 1, true) }
func BenchmarkRow2sCycle8x8StringKeys(b *testing.B) { cycles(b, 8, 8, true) }

// BenchmarkRow4HotKeys: an op is one producer Add of one of 1000 hot keys.
func BenchmarkRow4HotKeys(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		d := HotKeys(impl, HotKeySpec{Adds: b.N, Keys: 1000, Producers: 8, Workers: 8})
		b.ReportMetric(float64(b.N)/d.Seconds(), "adds/s")
	})
}

// BenchmarkRow5Flood: an op is a whole flood of 100k AddAfter items.
func BenchmarkRow5Flood(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		var total time.Duration
		for b.Loop() {
			total += Flood(impl, FloodSpec{Items: 100_000, MaxDelay: 50 * time.Millisecond, Producers: 8, Workers: 8})
		}
		b.ReportMetric(float64(b.N)*100_000/total.Seconds(), "items/s")
	})
}

// BenchmarkRow6RetryLoop: an op is one item that fails three times, then succeeds.
func BenchmarkRow6RetryLoop(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		d := RetryLoop(impl, RetrySpec{Items: b.N, Failures: 3, Workers: 8, Retry: DefaultRetry})
		b.ReportMetric(4*float64(b.N)/d.Seconds(), "Gets/s")
	})
}

// BenchmarkRow7IdleQueues: an op is 10,000 idle rate-limiting queues, created, measured and
// shut down. Their wake-ups are counted by the comparison command and TestIdleWakeups*.
func BenchmarkRow7IdleQueues(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		var f Footprint
		for b.Loop() {
			f = MeasureFootprint(impl, RateLimiting, 10_000)
		}
		b.ReportMetric(f.BytesPerQueue, "B/queue")
		b.ReportMetric(f.GoroutinesPerQueue, "goroutines/queue")
	})
}

// BenchmarkRow8Latency: an op is one item added at 10k items/s and taken by one of 4 workers.
func BenchmarkRow8Latency(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		lat := Latency(impl, LatencySpec{Items: max(b.N, 100), Interval: 100 * time.Microsecond, Workers: 4})
		b.ReportMetric(float64(Quantile(lat, 0.5).Microseconds()), "p50-µs")
		b.ReportMetric(float64(Quantile(lat, 0.99).Microseconds()), "p99-µs")
	})
}

// BenchmarkRow9Observers: row 2 with one goroutine calling Len and ShuttingDown meanwhile.
func BenchmarkRow9Observers(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		r := Cycle(impl, CycleSpec{Items: b.N, Producers: 8, Workers: 8, Observers: 1})
		b.ReportMetric(float64(b.N)/r.Elapsed.Seconds(), "items/s")
		b.ReportMetric(float64(r.ObserverCalls)/r.Elapsed.Seconds(), "observer-calls/s")
	})
}

// BenchmarkAfterShutDown: an op is 200 delaying queues, each shut down and counted at once.
func BenchmarkAfterShutDown(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		var a AfterShutDown
		for b.Loop() {
			a = MeasureAfterShutDown(impl, Delaying, 200)
		}
		b.ReportMetric(a.Live, "goroutines/live-queue")
		b.ReportMetric(a.Left, "goroutines-left/queue")
	})
}

// BenchmarkBytesPerItem: an op is 100k distinct keys queued with no worker.
func BenchmarkBytesPerItem(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		var bytes float64
		for b.Loop() {
			bytes = BytesPerItem(impl, 100_000)
		}
		b.ReportMetric(bytes, "B/item")
	})
}

// BenchmarkCycleOneGoroutine: an op is one Add, Get and Done in one goroutine; allocs/op is
// the allocations per cycle.
func BenchmarkCycleOneGoroutine(b *testing.B) {
	forEach(b, func(b *testing.B, impl Impl) {
		q := impl.New(DefaultRetry)
		defer q.ShutDown()
		key := 0
		for b.Loop() {
			q.Add(key)
			got, _ := q.Get()
			q.Done(got)
			key++
		}
	})
}
