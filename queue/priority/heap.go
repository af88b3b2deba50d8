package priority

// entries is a binary min-heap of entries under less. Each entry knows its position, so that
// one whose order changes can be moved, or removed, in logarithmic time.
type entries[T comparable] struct {
	list []*entry[T]
	less func(a, b *entry[T]) bool
}

// keep is the size, in entries, up to which an emptied heap keeps its array, and an emptied
// State its map of entries, for the next entries; beyond it, they are let go once a burst has
// passed, as the other queues' FIFO and delay heap let theirs go.
const keep = 256

func (h *entries[T]) len() int { return len(h.list) }

// top returns the first entry without removing it; the heap must not be empty.
func (h *entries[T]) top() *entry[T] { return h.list[0] }

func (h *entries[T]) push(e *entry[T]) {
	e.pos = len(h.list)
	h.list = append(h.list, e)
	h.up(e.pos)
}

// remove takes e out of the heap.
func (h *entries[T]) remove(e *entry[T]) {
	i, last := e.pos, len(h.list)-1
	if i != last {
		h.swap(i, last)
	}
	h.list[last] = nil
	h.list = h.list[:last]
	if last == 0 && cap(h.list) > keep {
		h.list = nil // a burst has passed: let its array go
	}
	if i != last {
		h.fix(i)
	}
	e.pos = -1
}

// fix restores the order after the entry at position i changed.
func (h *entries[T]) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *entries[T]) swap(i, j int) {
	h.list[i], h.list[j] = h.list[j], h.list[i]
	h.list[i].pos, h.list[j].pos = i, j
}

func (h *entries[T]) up(j int) {
	for j > 0 {
		parent := (j - 1) / 2
		if !h.less(h.list[j], h.list[parent]) {
			return
		}
		h.swap(parent, j)
		j = parent
	}
}

// down sifts the entry at i down and reports whether it moved.
func (h *entries[T]) down(i int) bool {
	start, n := i, len(h.list)
	for {
		child := 2*i + 1
		if child >= n {
			break
		}
		if right := child + 1; right < n && h.less(h.list[right], h.list[child]) {
			child = right
		}
		if !h.less(h.list[child], h.list[i]) {
			break
		}
		h.swap(i, child)
		i = child
	}
	return i > start
}
