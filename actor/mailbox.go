package actor

import (
	"sync"
	"sync/atomic"
)

// mailbox carries commands from callers to the owner, in the order they were put. A put never
// blocks: it appends under a lock that guards the mailbox alone. The owner collects every
// pending command at once, so under load it takes the lock once a batch, not once a command.
//
// The mailbox orders commands with takes, which send no command: a getter that takes an item
// from ready raises the watermark taken. put stamps each command with the watermark it reads
// just before the lock, and the owner starts every reservation up to a command's stamp before
// applying it. A command thus meets every take that happened before it was sent, and no take
// that happened after the next command was: when two stamps come out of order, the later
// command is placed right after the earlier one, before any take it did not see.
//
// Commands wait in a chain of segments, so a long backlog is never copied: the next segment is
// linked after a full one. Going to sleep, the owner keeps the two largest emptied segments for
// the next commands: two, as a queue woken now and then applies one while callers fill the
// other; the largest, so that bursts apart do not allocate theirs afresh.
//
// An owner that finds the mailbox empty marks itself asleep, and the next put sends one token
// on wake. Once woken, by whatever, the owner takes any token a put sent meanwhile, so that
// none is left to wake it for nothing.
type mailbox[T comparable] struct {
	mu         sync.Mutex
	head, tail *segment[T] // the commands put and not yet collected; nil when there are none
	free       *segment[T] // emptied segments, linked by next
	sleeping   bool        // the owner found the mailbox empty and waits on wake
	wake       chan struct{}
	taken      *atomic.Uint64 // the watermark of takes
}

// segment is a run of commands, oldest first, and the segment that follows it.
type segment[T comparable] struct {
	commands []command[T] // never grows beyond its capacity
	next     *segment[T]
}

// The first segment of a burst holds firstSegment commands; each next one twice as many as the
// one before, up to maxSegment.
const (
	firstSegment = 8
	maxSegment   = 256
)

// put stamps c with the watermark of takes and appends it, and wakes the owner if it is asleep.
// The owner passes wake false for a command it posts to itself in its turn: it collects again
// before it sleeps, and a token would only wake it from that sleep to find nothing. The token
// goes in under the lock, so that an owner that has woken (see wakeUp) finds every token sent
// before.
func (b *mailbox[T]) put(c command[T], wake bool) {
	c.taken = b.taken.Load()
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tail
	if t == nil || len(t.commands) == cap(t.commands) {
		t = b.extend()
	}
	t.commands = append(t.commands, c)
	if b.sleeping {
		b.sleeping = false
		if wake {
			b.nudge()
		}
	}
}

// extend links an empty segment at the end of the chain and returns it: an emptied one, else a
// new one twice the size of the last.
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

// wakeUp marks the owner awake, takes the token a put may have left (this turn applies that
// put's command; a nudge's token is as safe to take, as the turn ends with a refill), and
// returns every pending command, or nil.
func (b *mailbox[T]) wakeUp() *segment[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sleeping = false
	select {
	case <-b.wake:
	default:
	}
	return b.takeAll()
}

// collect returns every pending command as a chain of segments, oldest first; or nil, having
// marked the owner asleep: it must then wait on wake and call wakeUp. Only the owner calls
// collect, wakeUp and recycle (after the handover, the caller holding the handover lock).
func (b *mailbox[T]) collect() *segment[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.head == nil {
		b.sleeping = true
		b.keepLargest()
	}
	return b.takeAll()
}

// takeAll empties the mailbox, under its lock, and returns the chain it held.
func (b *mailbox[T]) takeAll() *segment[T] {
	chain := b.head
	b.head, b.tail = nil, nil
	return chain
}

// nudge makes the owner take a turn though no command waits: it wakes a sleeping owner, or
// keeps a busy one from sleeping after its turn. It never blocks.
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
