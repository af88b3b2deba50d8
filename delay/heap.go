// Package delay holds items until an instant: the waiting room behind a queue's AddAfter and
// AddRateLimited ([Heap]), and the debounce window that holds an added item until its adds
// stop ([Window]). It is plain single-goroutine code; the current time is always an argument.
//
// An instant is a time.Duration: the time elapsed since an origin of the caller's choosing (a
// queue counts from its creation). Comparing two instants is then comparing two integers, and
// the heap holds no pointers for the garbage collector to scan.
package delay

import (
	"slices"
	"time"

	"github.com/actorqueue/workqueue/internal/table"
)

// Heap is a min-heap of items by the instant they become due, holding at most one entry per
// item. Scheduling an item that is already waiting keeps the earlier of the two instants: an
// entry only ever moves earlier. Items due at the same instant come out in the order
// container/heap would give them, so a queue built on Heap releases ties as client-go's does.
//
// Its arrays grow by doubling and, once it empties, are let go if they hold more than keep
// items, so that a burst of delayed items leaves no memory behind.
//
// The zero value is an empty heap ready to use. It is not safe for concurrent use.
type Heap[T comparable] struct {
	// heap is the binary min-heap itself. Each entry carries its instant, so sifting compares
	// neighbours in one array instead of chasing them through slots.
	heap []entry
	// slots holds the items. A slot keeps its number while its entry moves in heap, which
	// lets index name it; freed numbers are reused before slots grows.
	slots []slot[T]
	free  []int32
	index table.Map[T, int32] // slot number of each waiting item
}

type entry struct {
	at   time.Duration
	slot int32
}

type slot[T any] struct {
	item T
	pos  int32 // position of this slot's entry in Heap.heap
}

// Schedule makes item due at the instant at, unless it is already due no later than that. It
// reports whether the entry was added or moved earlier.
func (h *Heap[T]) Schedule(item T, at time.Duration) bool {
	number, waiting := h.index.Ref(item)
	if waiting {
		pos := h.slots[*number].pos
		if at >= h.heap[pos].at {
			return false
		}
		h.heap[pos].at = at
		h.up(int(pos))
		return true
	}
	n := h.newSlot(item)
	*number = n
	h.slots[n].pos = int32(len(h.heap))
	h.heap = append(roomForOne(h.heap), entry{at: at, slot: n})
	h.up(len(h.heap) - 1)
	return true
}

// Set makes item due at the instant at, earlier or later than it was: the one way an entry
// moves later, for a debounce window that an add restarts (see [Window]).
func (h *Heap[T]) Set(item T, at time.Duration) {
	if number, waiting := h.index.Get(item); waiting {
		pos := int(h.slots[number].pos)
		h.heap[pos].at = at
		h.fix(pos)
		return
	}
	h.Schedule(item, at)
}

// Remove forgets item, and reports whether it was waiting.
func (h *Heap[T]) Remove(item T) bool {
	number, waiting := h.index.Get(item)
	if !waiting {
		return false
	}
	pos, last := int(h.slots[number].pos), len(h.heap)-1
	if pos != last {
		h.place(pos, h.heap[last])
	}
	h.heap = h.heap[:last]
	if pos != last {
		h.fix(pos)
	}
	h.index.Delete(item)
	h.slots[number] = slot[T]{}
	h.free = append(roomForOne(h.free), number)
	if len(h.heap) == 0 {
		h.emptied()
	}
	return true
}

// Next returns the instant the earliest item becomes due, and false when the heap is empty.
func (h *Heap[T]) Next() (time.Duration, bool) {
	if len(h.heap) == 0 {
		return 0, false
	}
	return h.heap[0].at, true
}

// PopDue removes and returns the earliest item if it is due at now (its instant is not after
// now). Call it until ok is false to release everything due.
func (h *Heap[T]) PopDue(now time.Duration) (item T, ok bool) {
	if len(h.heap) == 0 || h.heap[0].at > now {
		return item, false
	}
	n := h.heap[0].slot
	last := len(h.heap) - 1
	h.heap[0] = h.heap[last] // as container/heap: the last entry goes to the root and sinks
	h.heap = h.heap[:last]
	if last > 0 {
		h.down(0, last)
	}
	item = h.slots[n].item
	h.index.Delete(item)
	h.slots[n] = slot[T]{}
	h.free = append(roomForOne(h.free), n)
	if len(h.heap) == 0 {
		h.emptied()
	}
	return item, true
}

// Len returns the number of waiting items.
func (h *Heap[T]) Len() int { return len(h.heap) }

// Clear forgets every waiting item and releases the heap's memory.
func (h *Heap[T]) Clear() { *h = Heap[T]{} }

func (h *Heap[T]) newSlot(item T) int32 {
	if k := len(h.free); k > 0 {
		n := h.free[k-1]
		h.free = h.free[:k-1]
		h.slots[n] = slot[T]{item: item}
		return n
	}
	h.slots = append(roomForOne(h.slots), slot[T]{item: item})
	return int32(len(h.slots) - 1)
}

// keep is the capacity, in items, up to which an emptied heap keeps its arrays for the next
// items, as a queue's FIFO keeps its ring: a steady trickle of retries reuses them, and a
// larger burst lets them go once it has passed.
const keep = 256

// emptied forgets the slot numbers of a heap that has just become empty, and lets its arrays go
// if they are larger than keep.
func (h *Heap[T]) emptied() {
	if cap(h.heap) > keep {
		h.heap, h.slots, h.free = nil, nil, nil
		return
	}
	h.slots, h.free = h.slots[:0], h.free[:0]
}

// roomForOne returns s with room for one more element, doubling its capacity when it is full.
// append alone grows a large slice by a quarter at a time: once large, about three copies for
// each one of doubling (log 2 / log 1.25), and five times the final size allocated in all,
// against two.
func roomForOne[E any](s []E) []E {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, len(s)+1) // more than len(s) more, or append would grow by a quarter
}

// place puts e at position i of the heap and tells its slot where it is.
func (h *Heap[T]) place(i int, e entry) {
	h.heap[i] = e
	h.slots[e.slot].pos = int32(i)
}

// up and down are container/heap's sift operations, and leave every entry where its swaps
// would, so that entries with equal instants leave in the same order as there. Rather than
// swap at each level, they lift the moving entry out, shift each entry it passes one level
// into the gap, and put the moving entry down once where it stops: half the writes, and one
// slot update per level instead of two.

// up moves the entry at j toward the root while it is due before its parent.
func (h *Heap[T]) up(j int) {
	e := h.heap[j]
	for j > 0 {
		parent := (j - 1) / 2
		if e.at >= h.heap[parent].at {
			break
		}
		h.place(j, h.heap[parent])
		j = parent
	}
	h.place(j, e)
}

// fix moves the entry at i up or down to its place, after its instant changed.
func (h *Heap[T]) fix(i int) {
	if i > 0 && h.heap[i].at < h.heap[(i-1)/2].at {
		h.up(i)
		return
	}
	h.down(i, len(h.heap))
}

// down moves the entry at i, among the first n, away from the root while a child is due
// before it, taking the earlier child (the left one on a tie).
func (h *Heap[T]) down(i, n int) {
	e := h.heap[i]
	for {
		child := 2*i + 1
		if child >= n {
			break
		}
		if right := child + 1; right < n && h.heap[right].at < h.heap[child].at {
			child = right
		}
		if h.heap[child].at >= e.at {
			break
		}
		h.place(i, h.heap[child])
		i = child
	}
	h.place(i, e)
}
