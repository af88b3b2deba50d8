package actor

import "time"

// post sends c, waiting for the outcome when the owner runs foreign code. When the owner records
// metrics without making callers wait (see Queue.timed), an add or a Done carries the instant
// of the call, so that the metrics measure from the call rather than from the owner's turn.
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

// call sends c and waits for the answer, raising any panic the command caused.
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
func (q *Queue[T]) send(c command[T]) {
	select {
	case <-q.handover:
		q.settleOwn(c)
		return
	default:
	}
	// The owner this put may wake runs next on this processor once the caller blocks, or on
	// a processor that falls idle. The caller does not hand its processor over. Yielding
	// (runtime.Gosched) puts the caller in the global run queue, behind every goroutine the
	// scheduler has preempted, for a whole time slice (10 ms) each in a process with CPU-bound
	// goroutines; blocking until the owner has begun its turn costs a reschedule of the caller,
	// and every 61st reschedule of a processor serves the global run queue first. Either made
	// the busy-process rows of the comparison (P2) 3 to 25 times slower than client-go, for a
	// few microseconds of Add-to-Get latency in an idle process (row 8a).
	q.mailbox.put(c, true)
	if c.op == opShutDown {
		// Raised once the command is in: a caller that sees the flag raised (ShuttingDown, or an
		// Add that drops its item) and then sends a command sends it after the shutdown, so the
		// owner cannot apply an AddRateLimited, say, as if the queue were still running when
		// ShuttingDown has already said it was not.
		q.stopping.Store(true)
	}
	// The owner closes handover before its last look at the mailbox. If handover is still open
	// here, that look is yet to come and will find c; if it is closed, c may have arrived too
	// late, and settle applies it.
	select {
	case <-q.handover:
		q.settle(nil)
	default:
	}
}

// settleOwn is settle of a command of the caller's own. Making it a slice here, not in send,
// keeps send's command on the stack: escape analysis would move it to the heap on every call.
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

// drainMailbox applies every command in the mailbox, in a turn of its own: the first command
// that needs the time reads the clock afresh.
func (q *Queue[T]) drainMailbox() {
	q.now = time.Time{}
	for chain := q.mailbox.collect(); chain != nil; chain = q.mailbox.collect() {
		q.applyChain(chain)
	}
}
