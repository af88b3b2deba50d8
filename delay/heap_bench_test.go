package delay

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkFlood schedules a backlog of items at random instants within 50 ms and releases
// them a millisecond at a time, as a queue does under row 5 of the comparison (an AddAfter
// flood). One op is one item scheduled and released.
func BenchmarkFlood(b *testing.B) {
	const backlog = 1 << 16
	rng := rand.New(rand.NewPCG(1, 2))
	var h Heap[int]
	now := time.Duration(0)
	for i := 0; b.Loop(); i++ {
		h.Schedule(i, now+time.Duration(rng.Int64N(int64(50*time.Millisecond))))
		if h.Len() >= backlog {
			now += time.Millisecond
			for _, ok := h.PopDue(now); ok; _, ok = h.PopDue(now) {
			}
		}
	}
}
