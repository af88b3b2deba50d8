package bench

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// SteadySpec is row P3 of issue 26: items offered at a fixed rate for a fixed time, to a queue
// whose workers spend CPU on each.
type SteadySpec struct {
	// Rate is the offered rate, in items per second.
	Rate int
	// Duration is how long the producer offers items: Rate·Duration distinct keys in all.
	Duration time.Duration
	// Workers is how many goroutines Get, spend Work and call Done.
	Workers int
	// Work is the CPU each item costs its worker, in rounds of Spend (see WorkFor).
	Work int
	// Sink, if not nil, makes the queue named, recording its metrics there (Impl.NewNamed);
	// nil is an unnamed queue (Impl.NewStringKeyed).
	Sink *Sink
}

// SteadyResult is what a steady run measured.
type SteadyResult struct {
	// Items is how many items were added and processed.
	Items int
	// Latencies are the items' Add-to-Get latencies, from just before Add until Get returned,
	// sorted.
	Latencies []time.Duration
	// Elapsed runs from the first Add to the last item's Done.
	Elapsed time.Duration
	// CPU is the process's CPU time over Elapsed (getrusage), if CPUKnown.
	CPU      time.Duration
	CPUKnown bool
	// Name is the queue's name, "" for an unnamed queue.
	Name string
}

// Steady runs spec on a new queue of impl. Item i is due at i/Rate seconds after the start;
// the producer adds every item that is due, then sleeps until the next one is, so that a
// sleep that overshoots is caught up in one batch and the offered rate holds even where a
// sleep lasts longer than the gap between two items.
func Steady(impl Impl, spec SteadySpec) SteadyResult {
	items := max(1, int(float64(spec.Rate)*spec.Duration.Seconds()))
	res := SteadyResult{Items: items}
	keys := ObjectKeys(items)
	var q Keyed[string]
	if spec.Sink != nil {
		res.Name = queueName("steady")
		q = impl.NewNamed(res.Name, DefaultRetry, *spec.Sink)
	} else {
		q = impl.NewStringKeyed(DefaultRetry)
	}
	var (
		addedAt   = make([]time.Time, items)     // written before Add, read after Get
		latencies = make([]time.Duration, items) // one slot per key
		done      atomic.Int64
		finished  = make(chan struct{})
		workers   sync.WaitGroup
	)
	for range spec.Workers {
		workers.Go(func() {
			var h uint64
			defer func() { kept.Add(h) }()
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				k := keyOf(key)
				latencies[k] = time.Since(addedAt[k])
				h ^= Spend(key, spec.Work)
				q.Done(key)
				if done.Add(1) == int64(items) {
					close(finished)
				}
			}
		})
	}

	interval := time.Second / time.Duration(max(spec.Rate, 1))
	cpuBefore, cpuKnown := ProcessCPU()
	start := time.Now()
	for sent := 0; sent < items; {
		due := min(items, int(time.Since(start)/interval)+1)
		for ; sent < due; sent++ {
			addedAt[sent] = time.Now()
			q.Add(keys[sent])
		}
		if sent < items {
			time.Sleep(time.Until(start.Add(time.Duration(sent) * interval)))
		}
	}
	<-finished
	res.Elapsed = time.Since(start)
	cpuAfter, cpuAfterKnown := ProcessCPU()
	res.CPU, res.CPUKnown = cpuAfter-cpuBefore, cpuKnown && cpuAfterKnown
	q.ShutDown()
	workers.Wait()
	slices.Sort(latencies)
	res.Latencies = latencies
	return res
}
