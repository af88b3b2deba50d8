// Package delay holds items until an instant: the waiting room behind a queue's AddAfter and
// AddRateLimited. It is plain single-goroutine code; the current time is always an argument.
package delay

import "time"

// Heap is a min-heap of items by the instant they become due, holding at most one entry per
// item. Scheduling an item that is already waiting keeps the earlier of the two instants: an
// entry only ever moves earlier. Items due at the same instant come out in the order
// container/heap would give them, so a queue built on Heap releases ties as client-go's does.
//
// The zero value is an empty heap ready to use. It is not safe for concurrent use.
type Heap[T comparable] struct {
	heap  []int     // slot numbers, ordered as a binary min-heap on slots[n].at
	slots []slot[T] // entries; a slot keeps its number while its position in heap changes
	free  []int     // numbers of unused slots
	index map[T]int // slot number of each waiting item
}

type slot[T any] struct {
	item T
	at   time.Time
	pos  int // position of this slot in Heap.heap
}

// Schedule makes item due at the instant at, unless it is already due no later than that. It
// reports whether the entry was added or moved earlier.
func (h *Heap[T]) Schedule(item T, at time.Time) bool {
	if n, ok := h.index[item]; ok {
		s := &h.slots[n]
		if !at.Before(s.at) {
			return false
		}
		s.at = at
		h.up(s.pos)
		return true
	}
	if h.index == nil {
		h.index = make(map[T]int)
	}
	n := h.newSlot(item, at)
	h.index[item] = n
	h.slots[n].pos = len(h.heap)
	h.heap = append(h.heap, n)
	h.up(len(h.heap) - 1)
	return true
}

// Next returns the instant the earliest item becomes due, and false when the heap is empty.
func (h *Heap[T]) Next() (time.Time, bool) {
	if len(h.heap) == 0 {
		return time.Time{}, false
	}
	return h.slots[h.heap[0]].at, true
}

// PopDue removes and returns the earliest item if it is due at now (its instant is not after
// now). Call it until ok is false to release everything due.
func (h *Heap[T]) PopDue(now time.Time) (item T, ok bool) {
	if len(h.heap) == 0 || h.slots[h.heap[0]].at.After(now) {
		return item, false
	}
	last := len(h.heap) - 1
	h.swap(0, last)
	h.down(0, last)
	n := h.heap[last]
	h.heap = h.heap[:last]
	item = h.slots[n].item
	delete(h.index, item)
	h.slots[n] = slot[T]{}
	h.free = append(h.free, n)
	if len(h.heap) == 0 {
		h.slots, h.free = h.slots[:0], h.free[:0]
	}
	return item, true
}

// Len returns the number of waiting items.
func (h *Heap[T]) Len() int { return len(h.heap) }

// Clear forgets every waiting item and releases the heap's memory.
func (h *Heap[T]) Clear() { *h = Heap[T]{} }

func (h *Heap[T]) newSlot(item T, at time.Time) int {
	if k := len(h.free); k > 0 {
		n := h.free[k-1]
		h.free = h.free[:k-1]
		h.slots[n] = slot[T]{item: item, at: at}
		return n
	}
	h.slots = append(h.slots, slot[T]{item: item, at: at})
	return len(h.slots) - 1
}

func (h *Heap[T]) less(i, j int) bool {
	return h.slots[h.heap[i]].at.Before(h.slots[h.heap[j]].at)
}

func (h *Heap[T]) swap(i, j int) {
	h.heap[i], h.heap[j] = h.heap[j], h.heap[i]
	h.slots[h.heap[i]].pos = i
	h.slots[h.heap[j]].pos = j
}

// up and down are the sift operations of container/heap, step for step, so that entries with
// equal instants leave in the same order as there.
func (h *Heap[T]) up(j int) {
	for j > 0 {
		parent := (j - 1) / 2
		if !h.less(j, parent) {
			return
		}
		h.swap(parent, j)
		j = parent
	}
}

func (h *Heap[T]) down(i, n int) {
	for {
		child := 2*i + 1
		if child >= n {
			return
		}
		if right := child + 1; right < n && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h.swap(i, child)
		i = child
	}
}
