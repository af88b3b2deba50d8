package priority

import (
	"runtime"
	"testing"
	"time"
)

// heapInUse returns the bytes of live heap, once the garbage collector has freed what it can.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// burst adds n ready items and n waiting ones, promotes the waiting ones, and hands out every
// item and ends its processing, leaving s empty.
func burst(t *testing.T, s *State[int], n int) {
	t.Helper()
	for i := range n {
		s.Add(i, i%3, time.Time{})
		s.Add(n+i, i%3, t0.Add(time.Duration(i)))
	}
	for _, _, ok := s.PromoteDue(t0.Add(time.Duration(n))); ok; _, _, ok = s.PromoteDue(t0.Add(time.Duration(n))) {
	}
	for item, _, ok := s.HandOut(t0); ok; item, _, ok = s.HandOut(t0) {
		s.Done(item)
	}
	if s.Len() != 0 || s.Waiting() != 0 || s.Processing() != 0 {
		t.Fatalf("after the burst: Len %d, Waiting %d, Processing %d; want all 0", s.Len(), s.Waiting(), s.Processing())
	}
}

// Once a burst has passed and the state is empty, it holds no more memory than before the
// burst: its map of entries is made anew, and its heaps let their arrays go.
func TestAnEmptiedStateLetsABurstGo(t *testing.T) {
	const n = 100_000
	s := New[int]()
	before := heapInUse()
	burst(t, s, n)
	kept := int64(heapInUse()) - int64(before)
	// Kept on purpose, a Go map of these entries held 4.6 MB, and the two heaps' arrays 2.8 MB.
	if kept > 256<<10 {
		t.Errorf("after a burst of %d items, the state keeps %d kB more than before it; want at most 256 kB",
			2*n, kept>>10)
	}
	runtime.KeepAlive(s)
}

// A heap that never held more than keep entries keeps its array for the next ones, and a
// larger one lets it go.
func TestEmptiedHeapsKeepOnlyASmallArray(t *testing.T) {
	for _, tc := range []struct {
		items int
		kept  bool
	}{{keep / 4, true}, {2 * keep, false}} {
		s := New[int]()
		burst(t, s, tc.items)
		kept := cap(s.ready.list) > 0 && cap(s.waiting.list) > 0
		let := cap(s.ready.list) == 0 && cap(s.waiting.list) == 0
		if tc.kept && !kept || !tc.kept && !let {
			t.Errorf("after %d items, capacities ready %d, waiting %d; want them kept: %v",
				2*tc.items, cap(s.ready.list), cap(s.waiting.list), tc.kept)
		}
		burst(t, s, 3) // and the state goes on
	}
}
