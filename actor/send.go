package actor

import "time"

// post sends c, and waits for the outcome when callers wait (see Queue.waits). An add or a Done
// carries the instant of the call when the metrics measure from the calls (see Queue.timed).
func (q *Queue[T]) post(c command[T]) {
	if q.timed && c.callerTimed() {
		c.at = q.since(q.clock.Now())
	}
	if q.waits {
		q.call(c)
	} else {
		q.send(c)
	}
}

// call sends c and waits for the answer, raising any panic it carries.
func (q *Queue[T]) call(c command[T]) result[T] {
	r := q.ask(c)
	throw(r)
	return r
}

// throw raises the panic r carries for its caller, if any.
func throw[T any](r result[T]) {
	if r.fault != nil {
		panic(r.fault)
	}
}

// ask sends c and waits for the answer, which may carry a panic for the caller to raise.
func (q *Queue[T]) ask(c command[T]) result[T] {
	reply := q.replies.Get().(chan result[T])
	c.reply = reply
	q.send(c)
	r := <-reply
	q.replies.Put(reply)
	return r
}

// send makes sure c is applied: by the owner, or, once the owner has handed the state over,
// by this caller. It does not yield to the owner it may wake: that made the busy-process rows
// (P2) 3 to 25 times slower (see stress/PERFORMANCE.md).
func (q *Queue[T]) send(c command[T]) {
	q.mailbox.put(c, true)
	// The owner closes handover before its last look at the mailbox: if it is still open, that
	// look will find c; if closed, c may have come too late, and the caller applies it.
	select {
	case <-q.handover:
		q.settle()
	default:
	}
}

// settle applies, holding tomb, every command in the mailbox, in a turn of its own: the owner's
// last turn, then a caller's once the owner has handed over.
func (q *Queue[T]) settle() {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	q.now = time.Time{}
	for chain := q.mailbox.collect(false); chain != nil; chain = q.mailbox.collect(false) {
		q.applyChain(chain)
	}
}
