package table

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// objectKeys returns n distinct keys shaped like a controller's namespace/name keys, 27 bytes
// or so each.
func objectKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "namespace-" + strconv.Itoa(i%1000) + "/object-" + strconv.Itoa(i)
	}
	return keys
}

// BenchmarkMapFill adds a million distinct string keys to an empty table, as a queue's waiting
// set fills behind a backlog: the growths are most of the work. An op is the whole fill.
func BenchmarkMapFill(b *testing.B) {
	keys := objectKeys(1_000_000)
	for b.Loop() {
		var m Map[string, uint32]
		for i, k := range keys {
			m.Put(k, uint32(i))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/key")
}

// BenchmarkMapGet looks up present string keys in a random order, in a table small enough to
// stay in the first-level cache (a queue's processing set, a limiter's failures) and in one of
// a million keys that has outgrown every cache (a backlog's waiting set).
func BenchmarkMapGet(b *testing.B) {
	for _, n := range []int{64, 1_000_000} {
		b.Run(fmt.Sprint("entries=", n), func(b *testing.B) {
			keys := objectKeys(n)
			var m Map[string, uint32]
			for i, k := range keys {
				m.Put(k, uint32(i))
			}
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			i := 0
			for b.Loop() {
				if _, ok := m.Get(keys[i]); !ok {
					b.Fatal("a present key was not found")
				}
				if i++; i == len(keys) {
					i = 0
				}
			}
		})
	}
}

// BenchmarkMapGrowthPeak grows a table of 786,432 string keys from 2²⁰ slots to 2²¹, as the
// waiting set of a backlog of a million keys does, and reports by how much the live heap grew
// at most midway (peak-MB) and once done (after-MB): GrowFunc's callback collects garbage every
// 16,384 entries moved. A growth that kept the old table to the end would peak at the whole new
// table, 50 MB; one that drops each old chunk once it is moved, at the new table less the old,
// 25 MB, and a few chunks. The time per op is mostly those collections.
func BenchmarkMapGrowthPeak(b *testing.B) {
	keys := objectKeys(786_432)
	var peak, after int64
	for b.Loop() {
		b.StopTimer()
		var m Map[string, uint32]
		for i, k := range keys {
			m.Put(k, uint32(i))
		}
		if m.Size() != 1<<20 || !m.Full() {
			b.Fatalf("%d keys in %d slots, full: %v; want a full table of 2²⁰", m.Len(), m.Size(), m.Full())
		}
		before := int64(liveHeap())
		b.StartTimer()
		moved := 0
		m.GrowFunc(func(string, uint32) bool {
			if moved++; moved%16_384 == 0 {
				peak = max(peak, int64(liveHeap())-before)
			}
			return false
		})
		after = int64(liveHeap()) - before
		if m.Len() != len(keys) { // and m stays live until after is measured
			b.Fatalf("%d keys after the growth, want %d", m.Len(), len(keys))
		}
	}
	b.ReportMetric(float64(peak)/1e6, "peak-MB")
	b.ReportMetric(float64(after)/1e6, "after-MB")
}
