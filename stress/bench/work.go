package bench

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// kept receives the hashes Spend returns, so that no compiler can prove them unused.
var kept atomic.Uint64

// Spend does rounds rounds of FNV-1a hashing over the bytes of key, over and over: the CPU a
// reconcile spends, real work that no sleep stands in for. It returns the hash, which callers
// keep so that the compiler cannot drop the loop. A round takes about a nanosecond (each
// multiplication waits for the one before); WorkFor converts a duration.
func Spend(key string, rounds int) uint64 {
	h := uint64(14695981039346656037)
	if key == "" {
		key = "-"
	}
	for i, j := 0, 0; i < rounds; i++ {
		h ^= uint64(key[j])
		h *= 1099511628211
		if j++; j == len(key) {
			j = 0
		}
	}
	return h
}

// calibrationKey is the key Spend hashes while WorkFor times it, one of ObjectKeys' form.
const calibrationKey = "namespace-7/object-57"

// roundsPerSecond is how many rounds of Spend this machine does per second: the fastest of
// five timings of 2^18 rounds, measured once, on the first call.
var roundsPerSecond = sync.OnceValue(func() float64 {
	const rounds = 1 << 18
	best := time.Duration(math.MaxInt64)
	var keep uint64
	for range 5 {
		start := time.Now()
		keep += Spend(calibrationKey, rounds)
		best = min(best, time.Since(start))
	}
	kept.Add(keep)
	return rounds / max(best.Seconds(), 1e-9)
})

// WorkFor returns how many rounds of Spend take d of CPU on this machine, at least 1 for a
// positive d. The first call times Spend (about 2 ms); call it outside a testing/synctest
// bubble, whose clock does not move while code runs.
func WorkFor(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return max(1, int(math.Round(d.Seconds()*roundsPerSecond())))
}
