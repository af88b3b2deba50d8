package bench

import (
	"sync"
	"sync/atomic"
	"time"
)

// CycleSpec is a run of Add/Get/Done cycles on distinct keys (rows 1, 2, 3 and 9).
type CycleSpec struct {
	// Items is how many distinct keys the producers add in all; each is processed once.
	Items int
	// Producers and Workers are how many goroutines add and how many Get and Done.
	Producers, Workers int
	// Observers is how many goroutines call Len and ShuttingDown in a loop meanwhile (row 9).
	Observers int
}

// CycleResult is what a cycle run measured.
type CycleResult struct {
	// Elapsed runs from the first Add to the last item's Done.
	Elapsed time.Duration
	// ObserverCalls counts the Len and ShuttingDown calls the observers made meanwhile.
	ObserverCalls int64
}

// Cycle runs spec on a new queue of impl. Producer p adds the keys p, p+Producers, ... below
// Items; the workers take them and call Done; the run ends when Items items are done.
func Cycle(impl Impl, spec CycleSpec) CycleResult {
	q := impl.New(DefaultRetry)
	var observerCalls atomic.Int64
	var others sync.WaitGroup

	start := time.Now()
	workers := startCrew(q, spec.Workers, spec.Items, nil)
	for range spec.Observers {
		others.Go(func() { observerCalls.Add(observe(q, workers.finished)) })
	}
	for p := range spec.Producers {
		others.Go(func() {
			for key := p; key < spec.Items; key += spec.Producers {
				q.Add(key)
			}
		})
	}
	<-workers.finished
	elapsed := time.Since(start)
	workers.stop()
	others.Wait()
	return CycleResult{Elapsed: elapsed, ObserverCalls: observerCalls.Load()}
}

// observe calls Len and ShuttingDown until stop is closed, and returns how many calls it made.
func observe(q Queue, stop <-chan struct{}) int64 {
	var calls int64
	for {
		select {
		case <-stop:
			return calls
		default:
		}
		q.Len()
		q.ShuttingDown()
		calls += 2
	}
}
