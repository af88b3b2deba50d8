package actor

import (
	"bytes"
	"context"
	"runtime"
)

// ShutDown makes the queue ignore new items. Getters of a FIFO queue then receive the items
// still waiting, then shutdown == true; those of a priority queue, shutdown == true at once. It
// ends any ShutDownWithDrain that is waiting, and returns once the owner goroutine has exited.
// Calling it again does nothing.
func (q *Queue[T]) ShutDown() {
	r := q.ask(command[T]{op: opShutDown})
	<-q.exited
	throw(r)
}

// ShutDownWithDrain is ShutDown that first waits until no item is being processed. It waits
// forever if a worker never calls Done, unless ShutDown is called meanwhile.
func (q *Queue[T]) ShutDownWithDrain() {
	r := q.ask(command[T]{op: opShutDown, more: &details[T]{drain: true}})
	<-q.exited
	throw(r)
}

// ShutDownWithDrainContext is ShutDownWithDrain that gives up when ctx is done: it then shuts
// the queue down as ShutDown does, ending every drain, and returns the items that were still
// being processed, with ctx.Err(). When the drain completes first, it returns nil, nil. Either
// way it returns once the owner goroutine has exited.
func (q *Queue[T]) ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error) {
	reply := q.replies.Get().(chan result[T])
	q.send(command[T]{op: opShutDown, reply: reply, more: &details[T]{drain: true}})
	var drained, cut result[T]
	report := &details[T]{report: true}
	select {
	case drained = <-reply:
	case <-ctx.Done():
		// A plain shutdown, which reports the items in processing, ends the drain above too.
		cut = q.ask(command[T]{op: opShutDown, more: report})
		drained = <-reply
	}
	q.replies.Put(reply)
	<-q.exited
	// Either answer may carry a panic for this caller: one kept for the next caller rides on
	// the first answer given, which is the drain's. Raise it now that the owner has gone.
	throw(drained)
	throw(cut)
	if len(report.items) == 0 {
		return nil, nil // the drain completed, before ctx ended or as it did
	}
	return report.items, ctx.Err()
}

// shutDown applies a shutdown command: the core stops taking items, getters and drains are
// answered as the rules say, and c's caller is answered now, or parked until processing ends
// (a drain), or told what is still in processing (report).
func (q *Queue[T]) shutDown(c *command[T]) (r result[T], parked bool) {
	d := c.extra()
	if d.report {
		d.items = q.core.InProcessing()
	}
	if q.core.ShutDown() {
		q.stopping.Store(true)
		close(q.closing)
		q.schedule.Stop()
	}
	if !d.drain {
		q.releaseDrainers() // a plain shutdown ends every drain
		return r, false
	}
	if q.idle() {
		return r, false
	}
	q.drainers = append(q.drainers, c.reply)
	return r, true
}

// idle reports whether no item is being processed, counting those that getters have taken
// from ready beyond the takes the owner has applied. A take sends no command: the owner applies
// it with the next command stamped after it (see mailbox), but the item is in a worker's hands
// from the take on, so a drain that ended without it would return while the item is still
// processed. This is what a worker looping from Done to Get does: its Done can reach the owner
// after its next take, and client-go's drain, which looks at processing only once it has the
// lock back, then waits for that item too. The watermark is read only when nothing else is in
// processing.
func (q *Queue[T]) idle() bool {
	if q.core.Processing() > 0 {
		return false
	}
	return !q.readAhead || q.taken.Load() <= q.fifo.Started()
}

func (q *Queue[T]) releaseDrainers() {
	for _, reply := range q.drainers {
		q.answer(reply, result[T]{})
	}
	q.drainers = nil
}

// finished reports whether the owner may leave: shutdown has begun and no drain waits.
func (q *Queue[T]) finished() bool { return q.core.Closed() && len(q.drainers) == 0 }

// Abandon shuts q down without waiting, for a queue that no caller can reach any more: the
// root package calls it from a cleanup (runtime.AddCleanup) on the value its callers hold,
// which nothing in q refers to, so that a queue dropped without ShutDown does not keep its
// owner goroutine, and with it the queue, forever. (client-go's plain queue has no goroutine,
// and is collected.) It does nothing once shutdown has begun, nor for a queue built in a
// testing/synctest bubble: the cleanup runs outside every bubble, and touching a bubble's
// channels from there ends the process. A bubble reports the goroutine it finds left blocked.
func (q *Queue[T]) Abandon() {
	if !q.bubbled && !q.stopping.Load() {
		q.send(command[T]{op: opShutDown})
	}
}

// inBubble reports whether the calling goroutine runs in a testing/synctest bubble. No package
// answers this, but the runtime names the bubble in the header of a goroutine's stack trace:
// "goroutine 7 [running, synctest bubble 1]:".
func inBubble() bool {
	var buf [128]byte
	header, _, _ := bytes.Cut(buf[:runtime.Stack(buf[:], false)], []byte("\n"))
	return bytes.Contains(header, []byte("synctest bubble"))
}
