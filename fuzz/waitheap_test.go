package fuzz

import (
	"container/heap"
	"time"
)

// waiting is an item due at an instant, as the references keep it.
type waiting[T comparable] struct {
	item  T
	at    time.Time
	index int // position in its waitHeap
}

// waitHeap is a container/heap of waiting items by instant, with one entry per item: the
// waiting room of client-go's delaying queue, and the order the delay heap promises to keep.
// Use it through schedule and pop. The zero value is empty and ready.
type waitHeap[T comparable] struct {
	entries []*waiting[T]
	byItem  map[T]*waiting[T]
}

// schedule makes item due at at, or earlier if it already waits for an earlier instant, and
// reports whether it added the item or moved it earlier.
func (h *waitHeap[T]) schedule(item T, at time.Time) bool {
	if w, ok := h.byItem[item]; ok {
		if !at.Before(w.at) {
			return false
		}
		w.at = at
		heap.Fix((*heapOrder[T])(h), w.index)
		return true
	}
	if h.byItem == nil {
		h.byItem = make(map[T]*waiting[T])
	}
	w := &waiting[T]{item: item, at: at}
	heap.Push((*heapOrder[T])(h), w)
	h.byItem[item] = w
	return true
}

// set makes item due at at, earlier or later than before: a debounce window that an add
// restarts, which the library's window moves as container/heap's Fix does.
func (h *waitHeap[T]) set(item T, at time.Time) {
	if w, ok := h.byItem[item]; ok {
		w.at = at
		heap.Fix((*heapOrder[T])(h), w.index)
		return
	}
	h.schedule(item, at)
}

// remove forgets item, if it waits.
func (h *waitHeap[T]) remove(item T) bool {
	w, ok := h.byItem[item]
	if !ok {
		return false
	}
	heap.Remove((*heapOrder[T])(h), w.index)
	delete(h.byItem, item)
	return true
}

// has reports whether item waits.
func (h *waitHeap[T]) has(item T) bool {
	_, ok := h.byItem[item]
	return ok
}

// next returns the earliest waiting entry, or nil.
func (h *waitHeap[T]) next() *waiting[T] {
	if len(h.entries) == 0 {
		return nil
	}
	return h.entries[0]
}

// pop removes and returns the earliest entry if it is due at now.
func (h *waitHeap[T]) pop(now time.Time) (item T, ok bool) {
	if w := h.next(); w == nil || w.at.After(now) {
		return item, false
	}
	w := heap.Pop((*heapOrder[T])(h)).(*waiting[T])
	delete(h.byItem, w.item)
	return w.item, true
}

// clear forgets every entry.
func (h *waitHeap[T]) clear() { *h = waitHeap[T]{} }

// heapOrder is waitHeap as a heap.Interface.
type heapOrder[T comparable] waitHeap[T]

func (h *heapOrder[T]) Len() int           { return len(h.entries) }
func (h *heapOrder[T]) Less(i, j int) bool { return h.entries[i].at.Before(h.entries[j].at) }
func (h *heapOrder[T]) Swap(i, j int) {
	h.entries[i], h.entries[j] = h.entries[j], h.entries[i]
	h.entries[i].index, h.entries[j].index = i, j
}
func (h *heapOrder[T]) Push(x any) {
	w := x.(*waiting[T])
	w.index = len(h.entries)
	h.entries = append(h.entries, w)
}
func (h *heapOrder[T]) Pop() any {
	last := len(h.entries) - 1
	w := h.entries[last]
	h.entries[last] = nil
	h.entries = h.entries[:last]
	return w
}
