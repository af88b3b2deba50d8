package concurrent

import (
	"math/rand/v2"
	"time"
)

// rng returns the random source of one goroutine of the round: seeded from the round's seed,
// different for each goroutine.
func (r *round) rng(goroutine int) *rand.Rand {
	return rand.New(rand.NewPCG(r.plan.seed, uint64(goroutine)+2))
}

// produce is producer p: it adds shared keys (hot ones half the time), its own keys once each
// (some at once, in order, some with a delay), delayed keys and failed keys, forgets some, and
// now and then pauses, which lets time pass once everyone is waiting.
func (r *round) produce(p int) {
	rng := r.rng(p)
	log := &r.adds[p]
	nextFifo, nextLater := 0, 0
	for range callsPerProducer {
		k := r.sharedKey(rng)
		start := r.stamp()
		immediate, own := true, false
		switch n := rng.IntN(100); {
		case n < 10 && nextFifo < fifoKeysPerProd:
			k, own = fifoKey(p, nextFifo), true
			nextFifo++
			r.q.plain.Add(k)
		case n < 14 && r.q.delayed != nil && nextLater < laterKeysPerProd:
			k, immediate = laterKey(p, nextLater), false
			nextLater++
			d, at := time.Duration(100+rng.IntN(3000))*time.Microsecond, time.Now()
			r.q.delayed.AddAfter(k, d)
			r.laterAdds[p] = append(r.laterAdds[p], add{key: k, at: at, delay: d})
		case n < 35 && r.q.delayed != nil:
			d := time.Duration(rng.IntN(3500)-500) * time.Microsecond
			immediate = d <= 0
			r.q.delayed.AddAfter(k, d)
		case n < 50 && r.q.limited != nil:
			immediate = false
			r.q.limited.AddRateLimited(k)
		case n < 55 && r.q.limited != nil:
			r.q.limited.Forget(k)
			continue
		default:
			r.q.plain.Add(k)
		}
		a := add{key: k, start: start, end: r.stamp(), immediate: immediate}
		*log = append(*log, a)
		if own {
			r.fifoOrder[p] = append(r.fifoOrder[p], a)
		}
		if rng.IntN(4) == 0 {
			time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
		}
	}
}

// sharedKey draws a shared key: a hot key half the time, any of them otherwise.
func (r *round) sharedKey(rng *rand.Rand) int {
	if rng.IntN(2) == 0 {
		return rng.IntN(hotKeys)
	}
	return rng.IntN(sharedKeys)
}

// work is worker w: the classic worker loop. It checks that no other worker holds the key it
// gets, sometimes takes time over it, and with a rate-limiting queue fails some keys (never a
// producer's own key, which must be processed once at most) with AddRateLimited and forgets the
// others.
func (r *round) work(w int) {
	rng := r.rng(producers + w)
	adds, log := &r.adds[producers+w], &r.processings[w]
	for {
		getStart := r.stamp()
		k, shutdown := r.q.plain.Get()
		getEnd, gotAt := r.stamp(), time.Now()
		if shutdown {
			return
		}
		if !r.busy[k].CompareAndSwap(false, true) {
			r.violate("[double-processing] key %d handed to a worker while another processes it", k)
		}
		if rng.IntN(4) == 0 {
			time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
		}
		if q := r.q.limited; q != nil {
			if !isOwnKey(k) && rng.IntN(5) == 0 && q.NumRequeues(k) < maxRequeues {
				start := r.stamp()
				q.AddRateLimited(k)
				*adds = append(*adds, add{key: k, start: start, end: r.stamp()})
			} else {
				q.Forget(k)
			}
		}
		r.busy[k].Store(false)
		*log = append(*log, processing{key: k, getStart: getStart, getEnd: getEnd, gotAt: gotAt, doneStart: r.stamp()})
		r.q.plain.Done(k)
	}
}

// sample calls Len and ShuttingDown until stop is closed. Len can never be negative, nor more
// than the number of distinct keys, since a key waits at most once.
func (r *round) sample(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		if n := r.q.plain.Len(); n < 0 || n > totalKeys {
			r.violate("[len] Len() = %d, outside 0 to %d", n, totalKeys)
		}
		r.q.plain.ShuttingDown()
		time.Sleep(200 * time.Microsecond)
	}
}
