package table

import "testing"

// BenchmarkMapDeleteFunc sweeps a table of 2²⁰ slots holding 2¹⁹ entries, keeping one entry in
// two or one in 32, as a queue's waiting set sweeps its stale entries.
func BenchmarkMapDeleteFunc(b *testing.B) {
	for _, tc := range []struct {
		name  string
		every int // keep one entry in every
	}{{"keep-half", 2}, {"keep-1-in-32", 32}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				var m Map[int, int]
				for i := range 1 << 19 {
					m.Put(i, i)
				}
				b.StartTimer()
				m.DeleteFunc(func(k, _ int) bool { return k%tc.every != 0 })
			}
		})
	}
}
