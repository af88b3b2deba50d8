package bench

import (
	"runtime"
	"time"
)

// AfterShutDown is what is left of a queue right after its ShutDown returns.
type AfterShutDown struct {
	// Live is the mean number of goroutines per queue before ShutDown.
	Live float64
	// Left is the mean number of goroutines per queue still there when ShutDown returned.
	Left float64
	// QueuesWithLeft is how many of the queues left at least one goroutine behind.
	QueuesWithLeft int
}

// MeasureAfterShutDown creates count queues of kind k one after another. For each, it counts
// the queue's goroutines (by profiler label, see labelled), then reads runtime.NumGoroutine
// just before and just after ShutDown: of the queue's goroutines, those that did not end in
// between are left. Reading the count takes nanoseconds, where a goroutine profile would
// stop the world and give the queue's goroutines time to end. It then waits, reading the count
// again, until they have ended before the next queue, so that nothing else ends meanwhile.
func MeasureAfterShutDown(impl Impl, k Kind, count int) AfterShutDown {
	var live, left int
	var result AfterShutDown
	for range count {
		var q ShutDowner
		label := labelled(func() { q = impl.NewKind(k) })
		n := countLabelled(label)
		before := runtime.NumGoroutine()
		q.ShutDown()
		ended := before - runtime.NumGoroutine()
		live += n
		if n > ended {
			left += n - ended
			result.QueuesWithLeft++
		}
		awaitCount(before - n)
	}
	result.Live = float64(live) / float64(count)
	result.Left = float64(left) / float64(count)
	return result
}

// awaitCount waits, up to 10 s, until at most n goroutines exist, looking every 20 µs.
func awaitCount(n int) {
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Microsecond)
	}
}
