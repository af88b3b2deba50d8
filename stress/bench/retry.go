package bench

import "time"

// RetrySpec is row 6: items that fail a few times, retried with AddRateLimited, then
// succeed and are forgotten.
type RetrySpec struct {
	// Items is how many distinct keys are added, each once, before the workers start.
	Items int
	// Failures is how many times each item fails before it succeeds.
	Failures int
	// Workers is how many goroutines Get and Done.
	Workers int
	// Retry is the queue's exponential-failure limiter: the retries of an item wait
	// Base, 2·Base, 4·Base, ...
	Retry Retry
}

// RetryLoop runs spec on a new queue of impl and returns the time from the first Add until
// every item has succeeded. A worker that gets an item which has failed fewer than Failures
// times counts a failure and calls AddRateLimited; otherwise it calls Forget. Either way it
// then calls Done. The queue thus hands out Items·(Failures+1) items in all.
func RetryLoop(impl Impl, spec RetrySpec) time.Duration {
	q := impl.New(spec.Retry)
	failures := make([]int, spec.Items) // written only by the worker holding the key

	start := time.Now()
	for key := 0; key < spec.Items; key++ {
		q.Add(key)
	}
	workers := startCrew(q, spec.Workers, spec.Items, func(key int) bool {
		if failures[key] < spec.Failures {
			failures[key]++
			q.AddRateLimited(key)
			return false
		}
		q.Forget(key)
		return true
	})
	<-workers.finished
	elapsed := time.Since(start)
	workers.stop()
	return elapsed
}
