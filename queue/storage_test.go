package queue

import (
	"testing"
)

func TestFIFOKeepsOrderAcrossGrowAndShrink(t *testing.T) {
	var f FIFO[int]
	next, want := 0, 0
	push := func(n int) {
		for range n {
			f.Push(next)
			next++
		}
	}
	pop := func(n int) {
		for range n {
			if got := f.Pop(); got != want {
				t.Fatalf("Pop = %d, want %d", got, want)
			}
			want++
		}
	}
	// Wrap the ring, grow it while wrapped, then drain it far enough to shrink it.
	push(10)
	pop(7)
	push(40)
	pop(30)
	push(1000)
	if f.Len() != 1013 || len(f.ring) != 1024 {
		t.Fatalf("Len %d, ring %d; want 1013, 1024", f.Len(), len(f.ring))
	}
	pop(1000)
	if len(f.ring) != keepFIFO {
		t.Errorf("ring of %d slots kept for %d items; want %d", len(f.ring), f.Len(), keepFIFO)
	}
	pop(f.Len())
	if f.Len() != 0 || len(f.ring) != keepFIFO {
		t.Errorf("Len %d, ring %d; want 0, %d", f.Len(), len(f.ring), keepFIFO)
	}
}

func TestFIFOSwingingLoadKeepsItsRing(t *testing.T) {
	var f FIFO[int]
	for i := range 40 {
		f.Push(i)
	}
	ring := &f.ring[0]
	for round := range 100 {
		for f.Len() > 0 {
			f.Pop()
		}
		for i := range 40 {
			f.Push(i)
		}
		if &f.ring[0] != ring {
			t.Fatalf("round %d: swinging between 0 and 40 items reallocated the ring", round)
		}
	}
}

func TestFIFOReleasesPoppedItems(t *testing.T) {
	var f FIFO[*int]
	f.Push(new(int))
	f.Pop()
	for i, p := range f.ring {
		if p != nil {
			t.Errorf("slot %d still holds a popped item", i)
		}
	}
}

func TestFIFOPopEmptyPanics(t *testing.T) {
	var f FIFO[int]
	mustPanic(t, "workqueue: Pop from an empty FIFO", func() { f.Pop() })
}

func TestFIFOTouchKeepsOrder(t *testing.T) {
	var f FIFO[string]
	f.Push("a")
	f.Push("b")
	f.Touch("a")
	if a, b := f.Pop(), f.Pop(); a != "a" || b != "b" {
		t.Errorf("got %s %s, want a b", a, b)
	}
}

// A draining FIFO keeps its ring at most 32 slots an item, and reallocates it 6 times for a
// burst of 300,000 items, not once at every halving.
func TestFIFODrainsInFewSteps(t *testing.T) {
	var f FIFO[int]
	for i := range 300_000 {
		f.Push(i)
	}
	ring, reallocations := &f.ring[0], 0
	for f.Len() > 0 {
		f.Pop()
		if len(f.ring) > keepFIFO && len(f.ring) >= 32*f.Len() {
			t.Fatalf("%d items in a ring of %d slots", f.Len(), len(f.ring))
		}
		if &f.ring[0] != ring {
			ring = &f.ring[0]
			reallocations++
		}
	}
	if reallocations != 6 || len(f.ring) != keepFIFO {
		t.Errorf("drained in %d reallocations to a ring of %d slots, want 6 to %d", reallocations, len(f.ring), keepFIFO)
	}
}
