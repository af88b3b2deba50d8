package queue

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkBacklog measures the state machine alone under row 1's pattern, behind a backlog of
// distinct items: each operation adds a new item, then reserves, takes and ends the oldest.
// The backlog's size decides whether the waiting map stays in cache.
func BenchmarkBacklog(b *testing.B) {
	for _, backlog := range []int{1 << 10, 1 << 20} {
		b.Run(fmt.Sprint(backlog), func(b *testing.B) {
			s := New[int](nil)
			var now time.Time
			next := 0
			for range backlog {
				s.Add(next)
				next++
			}
			b.ResetTimer()
			for range b.N {
				s.Add(next)
				next++
				item, seq, _ := s.Reserve(now)
				s.TakeNext(seq)
				s.Done(item)
			}
		})
	}
}
