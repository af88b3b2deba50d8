package bench

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
// the queue's goroutines (by profiler label, see labelled), calls ShutDown and counts them
// again at once; then it waits for them to end before the next queue.
func MeasureAfterShutDown(impl Impl, k Kind, count int) AfterShutDown {
	var live, left int
	var result AfterShutDown
	for range count {
		var q ShutDowner
		label := labelled(func() { q = impl.NewKind(k) })
		live += countLabelled(label)
		q.ShutDown()
		n := countLabelled(label)
		left += n
		if n > 0 {
			result.QueuesWithLeft++
		}
		awaitGoroutines(label)
	}
	result.Live = float64(live) / float64(count)
	result.Left = float64(left) / float64(count)
	return result
}
