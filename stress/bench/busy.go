package bench

import (
	"sync"
	"sync/atomic"
)

// spinRounds is the size of one spin: rounds of Spend between two looks at the stop flag.
const spinRounds = 4096

// spin starts n goroutines that spend CPU without blocking, as the other CPU-bound work of a
// busy process does, until stop is called. stop waits for them to return and gives the number
// of spins (spinRounds rounds of Spend each) they ran in all.
func spin(n int) (stop func() int64) {
	var (
		halt  atomic.Bool
		spins atomic.Int64
		wg    sync.WaitGroup
	)
	for range n {
		wg.Go(func() {
			var h uint64
			var mine int64
			for !halt.Load() {
				h ^= Spend(calibrationKey, spinRounds)
				mine++
			}
			kept.Add(h)
			spins.Add(mine)
		})
	}
	return func() int64 {
		halt.Store(true)
		wg.Wait()
		return spins.Load()
	}
}
