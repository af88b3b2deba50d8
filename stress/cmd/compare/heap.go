package main

import (
	"fmt"

	"github.com/actorqueue/workqueue/stress/bench"
)

// heapWorkers drain the queue of rows H.
const heapWorkers = 8

// heapPlan returns the experiment of issue 36's figures for a queue of many distinct string
// keys, rows H (bench.QueueHeap): the heap at its peak while they are added, at rest once
// they are queued, and at rest once drained. The command runs it alone (-million): a million
// keys take more memory and time than the other rows.
func heapPlan(items int) []experiment {
	keys := bench.ObjectKeys(items)
	mb := func(b int64) float64 { return float64(b) / 1e6 }
	what := fmt.Sprintf("%s distinct string keys added by one goroutine, no worker", thousands(items))
	return []experiment{{name: "queued keys", rows: []row{
		{id: "Ha", title: what + ": peak heap over the baseline (heap objects, live or not yet swept, sampled every 100 µs)", unit: "MB", better: lowerIsBetter},
		{id: "Hb", title: "the same: most live heap a collection marked while they were added, or once all were in", unit: "MB", better: lowerIsBetter},
		{id: "Hc", title: "the same: live heap per queued item, the queue at rest", unit: "B", better: lowerIsBetter},
		{id: "Hd", title: fmt.Sprintf("the same, once %d workers took every item and called Done: live heap left, the queue still held, at rest", heapWorkers), unit: "MB", better: lowerIsBetter},
		{id: "He", title: "the same: adds per second, until Len counted them all", unit: "adds/s", better: higherIsBetter, throughput: true},
	}, measure: func(impl bench.Impl) []float64 {
		r := bench.QueueHeap(impl, keys, heapWorkers)
		return []float64{mb(r.Peak), mb(r.PeakLive), float64(r.Queued) / float64(items), mb(r.Drained), float64(items) / r.Fill.Seconds()}
	}}}
}

// heapMethods says how rows H are measured; the report prints it under their table.
const heapMethods = `How rows H are measured (code: stress/bench/million.go):
- Each run makes a new queue on string keys (an unnamed rate-limiting queue; the priority
  queues: theirs) and reads the baseline once the process's live heap has settled: it collects
  again, a millisecond apart, until a collection frees less than 64 KiB. The keys,
  "namespace-<k mod 50>/object-<k>", are made once before the first run: they are part of the
  baseline, and every figure is the queue's own.
- Ha: while one goroutine adds every key, a sampler reads runtime/metrics every 100 µs
  (without stopping the world), and once more after the adds: the most bytes of heap objects,
  live or garbage not yet swept (MemStats' HeapAlloc), less the baseline. It is what the
  process needs memory for, at the default GOGC=100, so it moves with when the collections
  fall: the heap grows to about twice what the last one found live before the next.
- Hb: the most live heap (/gc/heap/live:bytes) that a collection marked during the adds, or
  the settled live heap once they were all in (Hc's numerator), if more.
- Hc: the settled live heap once Len has counted every key, per item.
- Hd: the settled live heap once 8 workers took every item and called Done, with the queue
  still held (before ShutDown): what a queue keeps after a burst.
- He: items over the time from the first Add until Len returned.`
