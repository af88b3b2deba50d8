package bench

import (
	"runtime"
	"time"
)

// Footprint is what a set of live, idle queues costs.
type Footprint struct {
	// BytesPerQueue is the growth of the live heap plus goroutine stacks, after a garbage
	// collection, divided by the number of queues.
	BytesPerQueue float64
	// GoroutinesPerQueue is the growth of runtime.NumGoroutine divided by the number of queues.
	GoroutinesPerQueue float64
}

// MeasureFootprint creates count idle queues of kind k (row 7 uses 10,000 rate-limiting ones),
// measures them, shuts them down and waits for their goroutines to end. Goroutines are counted
// by a profiler label set while the queues are created (see labelled), so that goroutines of
// anything else in the process do not count.
func MeasureFootprint(impl Impl, k Kind, count int) Footprint {
	bytes := settledLiveBytes()
	queues := make([]ShutDowner, count)
	label := labelled(func() {
		for i := range queues {
			queues[i] = impl.NewKind(k)
		}
	})
	f := Footprint{
		BytesPerQueue:      float64(settledLiveBytes()-bytes) / float64(count),
		GoroutinesPerQueue: float64(countLabelled(label)) / float64(count),
	}
	for _, q := range queues {
		q.ShutDown()
	}
	awaitGoroutines(label)
	return f
}

// BytesPerItem adds items distinct keys to a new queue of impl, with no worker, and returns
// the growth of the live heap divided by items: the queue at rest, from a baseline taken once
// the queues measured before are gone, to the heap once the queue has let go of what the adds
// needed only on their way in (see settledLiveBytes). Hash tables grow by doubling, so the
// figure depends on where items falls between two doublings of each implementation's tables.
func BytesPerItem(impl Impl, items int) float64 {
	q := impl.New(DefaultRetry)
	q.Len() // let every implementation finish its start-up allocations
	before := settledLiveBytes()
	for key := 0; key < items; key++ {
		q.Add(key)
	}
	q.Len() // controller-runtime applies Adds in the background, up to the next Len
	grown := settledLiveBytes() - before
	q.ShutDown()
	return float64(grown) / float64(items)
}

// AllocsPerCycle runs cycles Add/Get/Done cycles of distinct keys in one goroutine on a new
// queue of impl and returns the heap allocations per cycle, counted over every goroutine (a
// queue's own goroutines allocate for it too).
func AllocsPerCycle(impl Impl, cycles int) float64 {
	q := impl.New(DefaultRetry)
	cycle := func(key int) {
		q.Add(key)
		got, _ := q.Get()
		q.Done(got)
	}
	for key := 0; key < 100; key++ { // warm up: grow the maps and buffers once
		cycle(-1 - key)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for key := 0; key < cycles; key++ {
		cycle(key)
	}
	runtime.ReadMemStats(&after)
	q.ShutDown()
	return float64(after.Mallocs-before.Mallocs) / float64(cycles)
}

// liveBytes collects garbage and returns the bytes of live heap objects and goroutine stacks.
func liveBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc + m.StackInuse)
}

// settleSlack is how little a collection may free for the live heap to count as settled: the
// measuring code's own garbage, not a queue's.
const settleSlack = 64 << 10

// settledLiveBytes is liveBytes once what the process let go of has gone: it collects again,
// after a millisecond each time, until a collection frees less than settleSlack (ten times at
// most). One collection is not enough after a queue was measured: a queue that a cleanup
// watches (runtime.AddCleanup, as actorqueue's do) stays reachable from the cleanup until it
// has run, after the collection that found the queue unreachable, and a queue shut down a
// moment ago stays reachable from its goroutines until they have exited (controller-runtime's
// end after ShutDown returns). Either way a 200k-item queue measured before was freed during
// the next measurement, which then came out low, or below zero. Nor is one collection enough
// right after a burst of adds: actorqueue's owner drops the mailbox segments that carried the
// burst only as it goes to sleep, a moment after answering the Len that ends the burst, and a
// collection before that counted them (about 60 bytes an item for 200k ints).
func settledLiveBytes() int64 {
	live := liveBytes()
	for range 10 {
		time.Sleep(time.Millisecond)
		next := liveBytes()
		if live-next < settleSlack {
			return next
		}
		live = next
	}
	return live
}

// awaitGoroutines waits, up to 10 s, until no goroutine carries label: after a ShutDown some
// implementations' goroutines end a little later. Each look is a goroutine profile, which costs
// more the more goroutines there are, so it looks again after 50 µs, then twice as long each
// time, up to 10 ms.
func awaitGoroutines(label string) {
	deadline := time.Now().Add(10 * time.Second)
	pause := 50 * time.Microsecond
	for countLabelled(label) > 0 && time.Now().Before(deadline) {
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}
