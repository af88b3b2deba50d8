package bench

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// HotKeySpec is row 4: a few hot keys added over and over, also while they are processed.
type HotKeySpec struct {
	// Adds is how many Adds the producers make in all.
	Adds int
	// Keys is how many hot keys they choose from, at random.
	Keys int
	// Producers and Workers are how many goroutines add and how many Get and Done. Besides,
	// every other item handed out is added once more by its worker before its Done, so that
	// it is re-added while it is being processed, up to Adds/8 such re-adds in all.
	Producers, Workers int
}

// HotKeys runs spec on a new queue of impl and returns the time from the first Add until every
// Add has been served: for each key, a Get returned after the key's last Add began.
//
// To know that, every Add takes a number from a shared counter before it starts, and every Get,
// once it returns, reads the counter: key k is served when the last Get of k read at least the
// number of the last Add of k. A Get that read less returned before that Add began, so the Add
// finds the key taken and the queue hands it out again: the wait always ends.
func HotKeys(impl Impl, spec HotKeySpec) time.Duration {
	q := impl.New(DefaultRetry)
	var (
		ticket    atomic.Int64
		added     = make([]atomic.Int64, spec.Keys) // the ticket of each key's last Add
		served    = make([]atomic.Int64, spec.Keys) // the ticket read by each key's last Get
		gets      atomic.Int64                      // items handed out so far
		readds    atomic.Int64                      // re-adds left to make
		readding  sync.RWMutex                      // held to re-add; locked to look at it all
		finished  bool                              // all is served: no more re-adds
		progress  = make(chan struct{}, 1)
		producers sync.WaitGroup
	)
	readds.Store(int64(spec.Adds / 8))
	recordedAdd := func(key int) {
		raiseTo(&added[key], ticket.Add(1))
		q.Add(key)
	}
	// settled reports whether every Add has been served, and if so stops the re-adds. It
	// holds readding, so that no re-add is under way while it looks.
	settled := func() bool {
		readding.Lock()
		defer readding.Unlock()
		finished = allServed(added, served)
		return finished
	}

	start := time.Now()
	workers := startCrew(q, spec.Workers, 0, func(key int) bool {
		served[key].Store(ticket.Load()) // only the worker holding key writes it
		if gets.Add(1)%2 == 0 && readds.Add(-1) >= 0 {
			readding.RLock()
			if !finished {
				recordedAdd(key)
			}
			readding.RUnlock()
		}
		select {
		case progress <- struct{}{}:
		default:
		}
		return true
	})
	for p := range spec.Producers {
		producers.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 4))
			for i := p; i < spec.Adds; i += spec.Producers {
				recordedAdd(rng.IntN(spec.Keys))
			}
		})
	}
	producers.Wait()
	for !settled() {
		<-progress
	}
	elapsed := time.Since(start)
	workers.stop()
	return elapsed
}

// raiseTo sets v to n unless it already holds more.
func raiseTo(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if old >= n || v.CompareAndSwap(old, n) {
			return
		}
	}
}

// allServed reports whether every key's last Get came after its last Add.
func allServed(added, served []atomic.Int64) bool {
	for k := range added {
		if served[k].Load() < added[k].Load() {
			return false
		}
	}
	return true
}
