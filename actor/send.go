package actor

import "time"

// post sends c, and waits for the outcome when callers wait (see Queue.waits). When they do
// not but the metrics measure from the calls (see Queue.timed), an add or a Done carries the
// instant of the call.
func (q *Queue[T]) post(c command[T]) {
	if q.timed && (c.op == opAdd || c.op == opAddBatch || c.op == opDone) {
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
// by this caller.
//
// The caller does not yield to the owner a put may wake, which runs once the caller blocks or
// a processor falls idle. Yielding (runtime.Gosched) puts the caller behind every preempted
// goroutine in the global run queue, a time slice (10 ms) each with CPU-bound goroutines in the
// process; blocking until the owner's turn begins costs a reschedule. Either made the
// comparison's busy-process rows (P2) 3 to 25 times slower, for a few microseconds of latency
// in an idle process (row 8a).
func (q *Queue[T]) send(c command[T]) {
	select {
	case <-q.handover:
		q.settleOwn(c)
		return
	default:
	}
	q.mailbox.put(c, true)
	if c.op == opShutDown {
		// Raised once the command is in, so that a command sent after the flag is seen (an Add
		// dropped, ShuttingDown true) is applied after the shutdown.
		q.stopping.Store(true)
	}
	// The owner closes handover before its last look at the mailbox: if it is still open, that
	// look will find c; if closed, c may have come too late, and settle applies it.
	select {
	case <-q.handover:
		q.settle(nil)
	default:
	}
}

// settleOwn is settle of the caller's own command. Making the slice here keeps send's command
// on the stack: escape analysis would move it to the heap on every call.
func (q *Queue[T]) settleOwn(c command[T]) { q.settle([]command[T]{c}) }

// settle applies, holding the handover lock, whatever is left in the mailbox and then own.
func (q *Queue[T]) settle(own []command[T]) {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	q.drainMailbox()
	for i := range own {
		own[i].taken = q.taken.Load() // applied now, so stamped now
	}
	q.execAll(own)
}

// drainMailbox applies every command in the mailbox, in a turn of its own.
func (q *Queue[T]) drainMailbox() {
	q.now = time.Time{}
	for chain := q.mailbox.collect(); chain != nil; chain = q.mailbox.collect() {
		q.applyChain(chain)
	}
}
