package bench

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// HeapResult is what QueueHeap measured, in bytes over the heap before the queue was made.
type HeapResult struct {
	// Peak is the most heap the process held while the keys were added: heap objects, live
	// or garbage not yet swept, sampled every sampleEvery (runtime/metrics, which reads them
	// without stopping the world). It is what the process needs memory for, and it moves with
	// when the collections fall: the heap grows to about twice what the last one found live
	// (GOGC=100) before the next.
	Peak int64
	// PeakLive is the most live heap a collection marked while the keys were added, or the
	// live heap once they were all in, if more: what the queue needed at its fullest, its
	// garbage apart.
	PeakLive int64
	// Queued is the live heap once every key is queued and the queue is at rest (see
	// settledLiveBytes).
	Queued int64
	// Drained is the live heap once workers have taken every key and called Done, the queue
	// still held and at rest: what it keeps after a burst.
	Drained int64
	// Fill is how long the adds took, until Len counted them all.
	Fill time.Duration
}

// sampleEvery is how often QueueHeap samples the heap during the adds.
const sampleEvery = 100 * time.Microsecond

// The runtime/metrics QueueHeap samples: the bytes of heap objects (HeapAlloc of MemStats), and
// the live heap that the last collection marked.
const (
	heapObjects = "/memory/classes/heap/objects:bytes"
	heapLive    = "/gc/heap/live:bytes"
)

// QueueHeap adds keys, every one distinct, to a new queue of impl on string keys from one
// goroutine with no worker, as an informer's initial list fills a queue before its workers
// catch up; then workers goroutines take every key and call Done. It reports the heap the
// queue took at its peak, at rest once full, and at rest once drained. The keys are the
// caller's, made before: they are part of the baseline.
func QueueHeap(impl Impl, keys []string, workers int) HeapResult {
	q := impl.NewStringKeyed(DefaultRetry)
	q.Len() // let every implementation finish its start-up allocations
	base := settledLiveBytes()
	heapBase := readMetric(heapObjects) // just collected: the live heap, without stacks

	var res HeapResult
	stop := make(chan struct{})
	var peak, peakLive int64
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			objects, live := readMetric(heapObjects), readMetric(heapLive)
			peak, peakLive = max(peak, objects), max(peakLive, live)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	start := time.Now()
	for _, key := range keys {
		q.Add(key)
	}
	q.Len() // controller-runtime applies Adds in the background, up to the next Len
	res.Fill = time.Since(start)
	close(stop)
	sampler.Wait()
	// Once more, before any collection of ours: garbage not yet swept counts in the objects,
	// and the last collection's live heap is the one the adds left.
	peak, peakLive = max(peak, readMetric(heapObjects)), max(peakLive, readMetric(heapLive))
	res.Queued = settledLiveBytes() - base
	res.Peak = peak - heapBase
	res.PeakLive = max(peakLive-heapBase, res.Queued)

	var taken sync.WaitGroup
	var left atomic.Int64
	left.Store(int64(len(keys)))
	for range workers {
		taken.Go(func() {
			for left.Add(-1) >= 0 {
				key, _ := q.Get()
				q.Done(key)
			}
		})
	}
	taken.Wait()
	// A queue that keeps nothing can settle a few kilobytes below the baseline, which
	// reads as a negative size (and a negative ratio in the comparison): nothing is nothing.
	res.Drained = max(settledLiveBytes()-base, 0)
	q.ShutDown()
	return res
}

// readMetric returns the current value of the runtime/metrics metric name, of kind uint64.
func readMetric(name string) int64 {
	s := [1]metrics.Sample{{Name: name}}
	metrics.Read(s[:])
	return int64(s[0].Value.Uint64())
}
