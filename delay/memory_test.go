package delay

import (
	"math/bits"
	"testing"
)

// A flood of delayed items copies each of the heap's arrays about once per doubling of the
// flood, not once per quarter as append would.
func TestHeapArraysGrowByDoubling(t *testing.T) {
	const n = 1 << 15
	var h Heap[int]
	var heapGrows, slotGrows, freeGrows int
	grew := func(count *int, last *int, now int) {
		if now != *last {
			*count, *last = *count+1, now
		}
	}
	lastHeap, lastSlots, lastFree := 0, 0, 0
	for i := range n {
		h.Schedule(i, at(i))
		grew(&heapGrows, &lastHeap, cap(h.heap))
		grew(&slotGrows, &lastSlots, cap(h.slots))
	}
	for range n - 1 { // the last pop empties the heap, which lets the arrays go
		if _, ok := h.PopDue(at(n)); !ok {
			t.Fatal("an item due is not popped")
		}
		grew(&freeGrows, &lastFree, cap(h.free))
	}
	limit := bits.Len(n) + 2 // a doubling per bit, and a few size classes on the way
	if heapGrows > limit || slotGrows > limit || freeGrows > limit {
		t.Errorf("for %d items the heap grew %d times, the slots %d and the free list %d; want at most %d each",
			n, heapGrows, slotGrows, freeGrows, limit)
	}
}

// Once a burst has passed, the heap lets its arrays go; one that never held more than keep
// items keeps them for the next.
func TestEmptiedHeapLetsABurstGo(t *testing.T) {
	for _, tc := range []struct {
		items int
		kept  bool
	}{{keep / 2, true}, {4 * keep, false}} {
		var h Heap[int]
		for i := range tc.items {
			h.Schedule(i, at(i))
		}
		for range tc.items {
			h.PopDue(at(tc.items))
		}
		if h.Len() != 0 {
			t.Fatalf("%d items: %d left after popping them all", tc.items, h.Len())
		}
		kept := cap(h.heap) > 0 && cap(h.slots) > 0 && cap(h.free) > 0
		let := cap(h.heap) == 0 && cap(h.slots) == 0 && cap(h.free) == 0
		if tc.kept && !kept || !tc.kept && !let {
			t.Errorf("after %d items, capacities heap %d, slots %d, free %d; want them kept: %v",
				tc.items, cap(h.heap), cap(h.slots), cap(h.free), tc.kept)
		}
		h.Schedule(7, at(1)) // and the heap goes on
		if item, ok := h.PopDue(at(1)); item != 7 || !ok {
			t.Errorf("after %d items: PopDue = %d, %v; want 7, true", tc.items, item, ok)
		}
	}
}
