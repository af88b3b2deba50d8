package bench

import (
	"math/rand/v2"
	"sync"
	"time"
)

// FloodSpec is row 5: many items added with AddAfter at random delays.
type FloodSpec struct {
	// Items is how many distinct keys are added, each once.
	Items int
	// MaxDelay bounds the delays, which are uniform in [0, MaxDelay] and the same for every
	// implementation (a fixed seed).
	MaxDelay time.Duration
	// Producers and Workers are how many goroutines call AddAfter and how many Get and Done.
	Producers, Workers int
}

// Flood runs spec on a new queue of impl and returns the time from the first AddAfter until
// every item has been processed. No run can be shorter than MaxDelay.
func Flood(impl Impl, spec FloodSpec) time.Duration {
	delays := floodDelays(spec)
	q := impl.New(DefaultRetry)
	var producers sync.WaitGroup

	start := time.Now()
	workers := startCrew(q, spec.Workers, spec.Items, nil)
	for p := range spec.Producers {
		producers.Go(func() {
			for key := p; key < spec.Items; key += spec.Producers {
				q.AddAfter(key, delays[key])
			}
		})
	}
	<-workers.finished
	elapsed := time.Since(start)
	workers.stop()
	producers.Wait()
	return elapsed
}

// floodDelays returns the delay of each item.
func floodDelays(spec FloodSpec) []time.Duration {
	rng := rand.New(rand.NewPCG(5, 5))
	delays := make([]time.Duration, spec.Items)
	for i := range delays {
		delays[i] = time.Duration(rng.Int64N(int64(spec.MaxDelay) + 1))
	}
	return delays
}
