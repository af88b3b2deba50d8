package actor

import (
	"sync"
	"sync/atomic"
)

// mailbox carries commands from callers to the owner, in the order they were put. A put never
// blocks: it appends under a lock held for that one append, which guards the mailbox only. The
// owner collects every pending command at once, so under load it pays for the lock once a
// batch, not once a command.
//
// The mailbox orders commands with takes. A getter that takes an item from ready sends no
// command: it raises the watermark taken. put stamps each command with the watermark it reads
// just before the lock, and the owner starts every reservation up to a command's stamp before
// applying it. A command thus meets every take that happened before it was sent, and no take
// that happened after the next command was: when two stamps come out of order, the later
// command is placed right after the earlier one, before any take it did not see.
//
// Commands wait in a chain of segments: a full segment is never copied, the next is linked
// after it, so appending to a long backlog costs the append alone. Emptied segments serve the
// next commands; going to sleep, the owner keeps the two largest and lets the rest go. Two,
// because a queue woken now and then applies one segment while callers fill another; the
// largest, because bursts separated by sleeps would otherwise allocate theirs afresh.
//
// An owner that finds the mailbox empty marks itself asleep, and the next put sends one token
// on wake. Whatever wakes it, the owner marks itself awake and takes any token a put sent
// meanwhile before it collects again, so that none is left to wake it for nothing.
type mailbox[T comparable] struct {
	mu         sync.Mutex
	head, tail *segment[T] // the commands put and not yet collected; nil when there are none
	free       *segment[T] // emptied segments, linked by next, for the next commands
	sleeping   bool        // the owner found the mailbox empty and waits on wake
	wake       chan struct{}
	taken      *atomic.Uint64 // the watermark of takes
}

// segment is a run of commands, oldest first, and the segment that follows it.
type segment[T comparable] struct {
	commands []command[T] // never grows beyond its capacity
	next     *segment[T]
}

// The first segment of a burst holds firstSegment commands; each new one holds twice as many as
// the one before, up to maxSegment.
const (
	firstSegment = 8
	maxSegment   = 256
)

// put stamps c with the watermark of takes, appends it and, if the owner is marked asleep,
// wakes it, reporting whether it did.
func (b *mailbox[T]) put(c command[T]) (woke bool) { return b.enqueue(c, true) }

// postOwn is put for a command the owner posts to itself during its turn. The owner collects
// from the mailbox again before it next sleeps, so it needs no wake token: one left behind would
// only wake it from that sleep to find nothing.
func (b *mailbox[T]) postOwn(c command[T]) { b.enqueue(c, false) }

// enqueue stamps and appends c. If the owner was marked asleep, it no longer is, and enqueue
// reports it, having sent the token on wake when send. The token goes in under the lock, so
// that an owner that has woken (see wakeUp) finds every token a put sent before it.
func (b *mailbox[T]) enqueue(c command[T], send bool) (wasSleeping bool) {
	c.taken = b.taken.Load()
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tail
	if t == nil || len(t.commands) == cap(t.commands) {
		t = b.extend()
	}
	t.commands = append(t.commands, c)
	if !b.sleeping {
		return false
	}
	b.sleeping = false
	if send {
		b.nudge()
	}
	return true
}

// extend links an empty segment at the end of the chain and returns it: an emptied one when
// there is one, else a new one twice the size of the last.
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

// wakeUp marks the owner awake, whatever woke it (a put, a nudge, its alarm), and returns
// every pending command, or nil. It takes the token a put left, if the alarm woke the owner
// first: this turn applies that put's command, and the token would only wake the owner from
// its next sleep to find nothing. Taking a nudge's token is as safe: the turn ends with a
// refill.
func (b *mailbox[T]) wakeUp() *segment[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sleeping = false
	select {
	case <-b.wake:
	default:
	}
	chain := b.head
	b.head, b.tail = nil, nil
	return chain
}

// collect returns every pending command, as a chain of segments, oldest first; or nil after
// marking the owner asleep: the owner must then wait on wake, and call wakeUp once woken.
// Only the owner calls collect, wakeUp and recycle (after the handover, the caller holding the
// handover lock).
func (b *mailbox[T]) collect() *segment[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.head == nil {
		b.sleeping = true
		b.keepLargest()
		return nil
	}
	chain := b.head
	b.head, b.tail = nil, nil
	return chain
}

// nudge makes the owner take a turn, though no command waits: it wakes the owner if it sleeps,
// or keeps it from going to sleep after its current turn. It never blocks.
func (b *mailbox[T]) nudge() {
	select {
	case b.wake <- struct{}{}:
	default: // a token is already waiting
	}
}

// keepLargest cuts the emptied segments down to the two largest, the larger first: the next
// burst fills it first.
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
