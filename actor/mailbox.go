package actor

import (
	"sync"
	"sync/atomic"
)

// mailbox carries commands from callers to the owner, in the order they were put, in a chain of
// segments that a long backlog never makes it copy. Going to sleep, the owner keeps the two
// largest emptied segments: one to apply while callers fill the other, and the largest, so that
// bursts apart do not allocate theirs afresh.
//
// It orders commands with takes, which send none: a getter that takes an item from ready raises
// the watermark taken. put stamps each command with the watermark it reads just before the
// lock, and the owner starts every reservation up to a command's stamp before applying it. A
// command thus meets every take that happened before it was sent, and none that happened after
// the next command was: of two stamps out of order, the later command comes right after the
// earlier one, before any take it did not see.
type mailbox[T comparable] struct {
	mu         sync.Mutex
	head, tail *segment[T] // the commands put and not yet collected; nil when there are none
	free       *segment[T] // emptied segments, linked by next
	sleeping   bool        // the owner found the mailbox empty and waits on wake
	wake       chan struct{}
	taken      *atomic.Uint64 // the watermark of takes
	stopping   *atomic.Bool   // the queue's flag that shutdown has begun (see put)

	// Commands are counted as they are put, so that a reader of the owner's view (see
	// Queue.fresh) can tell whether the owner had applied every command put: puts counts them,
	// and once watched, sent is puts as of the last put.
	puts    uint64
	watched bool
	sent    atomic.Uint64
}

// segment is a run of commands, oldest first, and the segment that follows it.
type segment[T comparable] struct {
	commands []command[T] // never grows beyond its capacity
	next     *segment[T]
}

// The first segment holds firstSegment commands; each next one twice as many, up to maxSegment.
const (
	firstSegment = 8
	maxSegment   = 256
)

// put stamps c with the watermark of takes, appends it and wakes the owner if it is asleep,
// under the lock, so that an owner that has woken finds every token sent before (see collect).
// The owner passes wake false for a command to itself: it collects again before it sleeps.
//
// A shutdown command raises the stopping flag under the same lock, so that no command goes in
// between the two: a command put after the flag is seen comes after the shutdown, and a caller
// whose command went in after the shutdown finds the flag raised when it looks next (an Add
// that returns, then sees ShuttingDown report false, was added before the shutdown).
func (b *mailbox[T]) put(c command[T], wake bool) {
	c.taken = b.taken.Load()
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tail
	if t == nil || len(t.commands) == cap(t.commands) {
		t = b.extend()
	}
	t.commands = append(t.commands, c)
	if b.puts++; b.watched {
		b.sent.Store(b.puts)
	}
	if c.op == opShutDown {
		b.stopping.Store(true)
	}
	if b.sleeping {
		b.sleeping = false
		if wake {
			b.nudge()
		}
	}
}

// extend links an emptied or a new segment at the end of the chain and returns it.
func (b *mailbox[T]) extend() *segment[T] {
	s := b.free
	if s != nil {
		b.free, s.next = s.next, nil
	} else {
		size := firstSegment
		if b.tail != nil {
			size = min(2*cap(b.tail.commands), maxSegment)
		}
		s = &segment[T]{commands: make([]command[T], 0, size)}
	}
	if b.tail == nil {
		b.head = s
	} else {
		b.tail.next = s
	}
	b.tail = s
	return s
}

// collect returns every pending command as a chain of segments, oldest first, or nil. Awake,
// it marks the owner asleep when it finds none: the owner must then wait on wake and collect
// again, woken, which marks it awake and takes any token left (this turn applies that put's
// command, or ends with the refill a nudge asks for). Only the owner (after the handover, the
// caller holding tomb) calls collect and recycle.
func (b *mailbox[T]) collect(woken bool) *segment[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	if woken {
		b.sleeping = false
		select {
		case <-b.wake:
		default:
		}
	} else if b.head == nil {
		b.sleeping = true
		b.keepLargest()
	}
	chain := b.head
	b.head, b.tail = nil, nil
	return chain
}

// watch makes every put from now on publish the count of commands put, in sent.
func (b *mailbox[T]) watch() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.watched {
		b.watched = true
		b.sent.Store(b.puts)
	}
}

// nudge makes the owner take a turn though no command waits. It never blocks.
func (b *mailbox[T]) nudge() {
	select {
	case b.wake <- struct{}{}:
	default: // a token is already waiting
	}
}

// keepLargest cuts the emptied segments down to the two largest, the larger first.
func (b *mailbox[T]) keepLargest() {
	var first, second *segment[T]
	for s := b.free; s != nil; s = s.next {
		switch {
		case first == nil || cap(s.commands) > cap(first.commands):
			first, second = s, first
		case second == nil || cap(s.commands) > cap(second.commands):
			second = s
		}
	}
	if second != nil {
		second.next = nil
	}
	if first != nil {
		first.next = second
	}
	b.free = first
}

// recycle gives back a chain the owner has applied, for the commands to come.
func (b *mailbox[T]) recycle(chain *segment[T]) {
	last := chain
	for s := chain; s != nil; s = s.next {
		clear(s.commands) // let the garbage collector have the items
		s.commands = s.commands[:0]
		last = s
	}
	b.mu.Lock()
	last.next = b.free
	b.free = chain
	b.mu.Unlock()
}
