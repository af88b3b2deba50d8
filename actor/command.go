package actor

import (
	"time"

	"github.com/actorqueue/workqueue/limiter"
)

// op is the kind of a command.
type op uint8

const (
	opAdd            op = iota // item
	opAddNow                   // item, ready at once even if adds are debounced (AddAfter)
	opAddBatch                 // items, in order (a priority queue: with the add options)
	opAddAfter                 // item becomes due at at
	opAddRateLimited           // item, asked of lim at the instant at
	opDue                      // what is due at at: posted by the owner itself
	opForget                   // item, lim
	opNumRequeues              // item, lim; answers n
	opGet                      // answers an item, or shutdown; parks while none can go
	opUnwant                   // the getter of reply has given up; answers it if it still waits
	opTaken                    // item, taken from ready at at: its metrics start
	opDone                     // item
	opLen                      // answers n
	opSuperseded               // item; answers n = 1 if it is superseded
	opSnapshot                 // do: reads the counts (as opDo, and takes a kept panic)
	opTrackDelayed             // a delaying queue wraps this one: record its delayed items
	opShutDown                 // answers once shut down (and drained)
	opDo                       // do: a call to a limiter the queue adopted, made elsewhere
)

// command is one request to the owner; a nil reply means nobody waits. The fields of the rarer
// commands are in more, so that the mailbox copies little.
type command[T comparable] struct {
	op    op
	item  T
	taken uint64        // the watermark of takes when the command was sent (see mailbox)
	at    time.Duration // an instant, as the time since the queue's origin
	lim   *limiter.Handle[T]
	reply chan result[T]
	more  *details[T] // for the commands that need more, nil otherwise
}

// callerTimed reports whether c carries the instant of its call when the metrics trail the
// calls (see Queue.timed): the adds and Dones that callers post, and the takes.
func (c *command[T]) callerTimed() bool {
	switch c.op {
	case opAdd, opAddNow, opAddBatch, opDone, opTaken:
		return true
	}
	return false
}

// details are the fields of the less common commands.
type details[T comparable] struct {
	items  []T  // opAddBatch; the answer of opShutDown with report, and of opAddBatch (given up)
	drain  bool // opShutDown: wait until no item is being processed
	report bool // opShutDown: answer with the items being processed

	// The options of an add to a priority queue.
	after       time.Duration
	priority    int
	rateLimited bool
	delays      []time.Duration // each item's delay, when the caller asked its limiter
	timed       bool            // AddAfter: the items keep their timing, even a zero delay

	do func() // opDo, opSnapshot
}

// result is the owner's answer to a command. The rarer answers (lists of items) go into the
// command's details, which the caller reads once answered.
type result[T any] struct {
	item      T
	n         int  // a count, or the priority of a priority queue's item
	shutdown  bool // the queue is shut down: no item
	cancelled bool // a getter gave up before an item came
	gaveUp    bool // opAddRateLimited: the owner gave up on the item
	fault     any  // a panic to raise in the caller
}

// handoff is a reserved item on its way to a getter, with its reservation number.
type handoff[T any] struct {
	item T
	seq  uint64
}
