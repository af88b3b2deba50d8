package actor

import (
	"sync"
	"sync/atomic"
)

// mailbox carries commands from callers to the owner, in the order they were put. A caller's
// put never blocks: it appends under a lock held for that one append. The owner takes every
// pending command at once, so under load it pays for the lock once per batch, not once per
// command, and callers never wait for a full buffer. The lock guards the mailbox only; the
// queue's state is never touched under it.
//
// The mailbox also orders commands with takes. Getters do not send a command when they take
// an item: they raise the watermark taken (the highest reservation taken so far). put stamps
// each command with the watermark it reads just before taking the lock, and the owner starts
// every reservation up to the highest stamp seen so far before applying a command. A command
// thus meets every take that happened before it was sent, and no take that happened after
// the next command was: when two stamps come out of order, the later command is placed right
// after the earlier one, before any take it did not see. Reading the watermark, which every
// Get writes, outside the lock keeps the lock held only for the append.
//
// The mailbox orders shutdown with every other command, too. A shutdown command raises the
// queue's stopping flag inside the critical section that appends it, so a caller who sees the
// flag raised (ShuttingDown, or an Add that drops its item) and then puts a command puts it
// after the shutdown: the owner cannot apply an AddRateLimited, say, as if the queue were
// still running when ShuttingDown has already said it was not.
//
// When the owner finds the mailbox empty it marks itself asleep, and the next put sends one
// token on wake. An idle queue has no mailbox buffer at all.
type mailbox[T comparable] struct {
	mu       sync.Mutex
	pending  []command[T] // put, not yet taken
	spare    []command[T] // a taken batch's buffer, emptied, for reuse
	sleeping bool         // the owner found the mailbox empty and waits on wake
	wake     chan struct{}
	taken    *atomic.Uint64 // the watermark of takes
	stopping *atomic.Bool   // the queue's flag that shutdown has begun
}

func newMailbox[T comparable](taken *atomic.Uint64, stopping *atomic.Bool) mailbox[T] {
	return mailbox[T]{wake: make(chan struct{}, 1), taken: taken, stopping: stopping}
}

// put stamps c with the watermark of takes, appends it and wakes the owner if it sleeps. A
// shutdown command raises stopping as it goes in.
func (b *mailbox[T]) put(c command[T]) {
	c.taken = b.taken.Load()
	b.mu.Lock()
	if c.op == opShutDown {
		b.stopping.Store(true)
	}
	b.pending = append(b.pending, c)
	wake := b.sleeping
	b.sleeping = false
	b.mu.Unlock()
	if wake {
		select {
		case b.wake <- struct{}{}:
		default: // a token is already waiting
		}
	}
}

// take returns every pending command, oldest first, or nil after marking the owner asleep:
// the owner must then wait on wake before taking again. Going to sleep, it lets large buffers
// go, so that an idle queue does not keep the memory of its last burst. Only the owner calls
// take and recycle (after the handover, the caller holding the handover lock).
func (b *mailbox[T]) take() []command[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) == 0 {
		b.sleeping = true
		if cap(b.pending) > maxIdleBuffer {
			b.pending = nil
		}
		if cap(b.spare) > maxIdleBuffer {
			b.spare = nil
		}
		return nil
	}
	batch := b.pending
	b.pending, b.spare = b.spare, nil
	return batch
}

// recycle gives back a batch the owner has applied, for reuse while the queue is busy.
func (b *mailbox[T]) recycle(batch []command[T]) {
	clear(batch) // let the garbage collector have the items
	b.mu.Lock()
	b.spare = batch[:0]
	b.mu.Unlock()
}

// maxIdleBuffer is the capacity of the largest buffer an idle mailbox keeps.
const maxIdleBuffer = 256
