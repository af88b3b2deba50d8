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
			s, next := backlogOf(backlog)
			var now time.Time
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

// backlogOf returns a machine holding the items 0 to n-1, and n, the next item to add.
func backlogOf(n int) (s *State[int], next int) {
	s = New[int](nil)
	for next = range n {
		s.Add(next)
	}
	return s, n
}

// BenchmarkBacklogBatches is BenchmarkBacklog in batches of 64 operations, as the owner applies
// the commands of a busy turn, with and without reading ahead (State.Prefetch before the adds).
// A b.N of one batch counts 64 operations.
func BenchmarkBacklogBatches(b *testing.B) {
	const batch = 64
	for _, backlog := range []int{1 << 10, 1 << 20} {
		for _, ahead := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/prefetch=%v", backlog, ahead), func(b *testing.B) {
				s, next := backlogOf(backlog)
				var now time.Time
				adds := make([]int, batch)
				b.ResetTimer()
				for range b.N {
					if ahead {
						for i := range adds {
							adds[i] = next + i
						}
						s.Prefetch(adds)
					}
					for range batch {
						s.Add(next)
						next++
					}
					var last uint64
					for range batch {
						_, last, _ = s.Reserve(now)
					}
					for item, ok := s.TakeNext(last); ok; item, ok = s.TakeNext(last) {
						s.Done(item)
					}
				}
			})
		}
	}
}

// BenchmarkGrowingBacklog measures the state machine while adds outrun takes, as when producers
// outrun the workers: each operation adds ratio new items and hands out and ends the oldest,
// so the waiting map keeps filling up with entries both live and stale.
func BenchmarkGrowingBacklog(b *testing.B) {
	for _, ratio := range []int{2, 4} {
		b.Run(fmt.Sprintf("adds-per-take=%d", ratio), func(b *testing.B) {
			s, next := New[int](nil), 0
			var now time.Time
			for range b.N {
				for range ratio {
					s.Add(next)
					next++
				}
				item, seq, _ := s.Reserve(now)
				s.TakeNext(seq)
				s.Done(item)
			}
		})
	}
}
