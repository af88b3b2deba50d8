package bench

import (
	"math"
	"slices"
	"time"
)

// LatencySpec is row 8: one producer adds distinct keys at a steady rate, well below what any
// of the queues can take, and the workers measure how long each item waited.
type LatencySpec struct {
	// Items is how many keys the producer adds.
	Items int
	// Interval is the time between two Adds. The producer sleeps until each Add is due, and
	// when a sleep overshoots it makes the Adds that fell due at once.
	Interval time.Duration
	// Workers is how many goroutines Get and Done.
	Workers int
}

// Latency runs spec on a new queue of impl and returns each item's Add-to-Get latency: from
// just before Add until its Get returned. The result is sorted.
func Latency(impl Impl, spec LatencySpec) []time.Duration {
	q := impl.New(DefaultRetry)
	addedAt := make([]time.Time, spec.Items)       // written before Add, read after Get
	latencies := make([]time.Duration, spec.Items) // one slot per key
	workers := startCrew(q, spec.Workers, spec.Items, func(key int) bool {
		latencies[key] = time.Since(addedAt[key])
		return true
	})
	start := time.Now()
	for key := 0; key < spec.Items; key++ {
		if wait := time.Until(start.Add(time.Duration(key) * spec.Interval)); wait > 0 {
			time.Sleep(wait)
		}
		addedAt[key] = time.Now()
		q.Add(key)
	}
	<-workers.finished
	workers.stop()
	slices.Sort(latencies)
	return latencies
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted, by the nearest-rank method: the
// smallest sample that at least a fraction q of the samples do not exceed. sorted must not be
// empty.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}
