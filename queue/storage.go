package queue

import "math/bits"

// Storage holds the items that wait to be handed out, in an order of its choosing: the root
// package's Queue, client-go's interface of that name, whose documentation is the contract
// [State] keeps with it. [FIFO] and [Grouped] are the core's own.
type Storage[T comparable] interface {
	Touch(item T)
	Push(item T)
	Len() int
	Pop() T
}

// minFIFO is the smallest ring a FIFO allocates.
const minFIFO = 16

// keepFIFO is the size of the largest ring a FIFO never shrinks.
const keepFIFO = 256

// FIFO is a first-in-first-out [Storage] on a ring buffer that grows by doubling and, once at
// most 1/32 full, shrinks in one step to a ring at most a quarter full, down to keepFIFO slots.
// A burst does not pin its memory forever; a drained burst reallocates its ring a few times, not
// at every halving (6 times, not 11, for 300,000 items); and a load that swings by tens of
// items, as a queue's reservations do at every refill, does not reallocate at every swing. Its
// zero value is an empty FIFO ready to use. It is not safe for concurrent use.
type FIFO[T comparable] struct {
	ring []T // len(ring) is zero or a power of two
	head int // index of the oldest item
	n    int // number of items
}

// Touch does nothing: in a FIFO an item keeps its place when it is added again.
func (f *FIFO[T]) Touch(T) {}

// Push appends item at the back.
func (f *FIFO[T]) Push(item T) {
	if f.n == len(f.ring) {
		f.resize(max(2*len(f.ring), minFIFO))
	}
	f.ring[(f.head+f.n)&(len(f.ring)-1)] = item
	f.n++
}

// Len returns the number of items.
func (f *FIFO[T]) Len() int { return f.n }

// At returns the item at position i, counting from the front. It panics if i is out of range.
func (f *FIFO[T]) At(i int) T {
	if i < 0 || i >= f.n {
		panic("workqueue: FIFO position out of range")
	}
	return f.ring[(f.head+i)&(len(f.ring)-1)]
}

// Pop removes and returns the front item. It panics if the FIFO is empty.
func (f *FIFO[T]) Pop() T {
	if f.n == 0 {
		panic("workqueue: Pop from an empty FIFO")
	}
	var zero T
	item := f.ring[f.head]
	f.ring[f.head] = zero // let the garbage collector have it
	f.head = (f.head + 1) & (len(f.ring) - 1)
	f.n--
	if len(f.ring) > keepFIFO && 32*f.n <= len(f.ring) {
		f.resize(max(keepFIFO, 1<<bits.Len(uint(4*f.n))))
	}
	return item
}

// resize moves the items, oldest first, into a new ring of the given power-of-two size.
func (f *FIFO[T]) resize(size int) {
	ring := make([]T, size)
	if f.n > 0 {
		end := f.head + f.n
		if end <= len(f.ring) {
			copy(ring, f.ring[f.head:end])
		} else {
			k := copy(ring, f.ring[f.head:])
			copy(ring[k:], f.ring[:end-len(f.ring)])
		}
	}
	f.ring, f.head = ring, 0
}
