package actor

import (
	"bytes"
	"context"
	"runtime"
)

// ShutDown makes the queue ignore new items (see Get), ends every ShutDownWithDrain waiting, and
// returns once the owner goroutine has exited. Calling it again does nothing.
func (q *Queue[T]) ShutDown() {
	r := q.ask(command[T]{op: opShutDown})
	<-q.exited
	throw(r)
}

// ShutDownWithDrain shuts the queue down as ShutDown does, then waits until no item is being
// processed: forever if a worker never calls Done, unless ShutDown is called meanwhile. Items
// still delayed are dropped, as by ShutDown.
func (q *Queue[T]) ShutDownWithDrain() { q.ShutDownWithDrainContext(context.Background()) }

// ShutDownWithDrainContext is ShutDownWithDrain that gives up when ctx is done: it then shuts
// down as ShutDown does and returns the items still in processing, with ctx.Err(). If the
// drain completes first, it returns nil, nil.
func (q *Queue[T]) ShutDownWithDrainContext(ctx context.Context) (inFlight []T, err error) {
	reply := q.replies.Get().(chan result[T])
	q.send(command[T]{op: opShutDown, reply: reply, more: &details[T]{drain: true}})
	var drained, cut result[T]
	report := &details[T]{report: true}
	select {
	case drained = <-reply:
	case <-ctx.Done():
		cut = q.ask(command[T]{op: opShutDown, more: report}) // ends the drain above too
		drained = <-reply
	}
	q.replies.Put(reply)
	<-q.exited
	// A panic kept for the next caller rides on the first answer, the drain's: raise it now.
	throw(drained)
	throw(cut)
	if len(report.items) == 0 {
		return nil, nil // the drain completed, before ctx ended or as it did
	}
	return report.items, ctx.Err()
}

// shutDown applies a shutdown command: the core stops taking items, and c's caller is answered
// now (with what is in processing, if it asks), or parked until processing ends (a drain).
func (q *Queue[T]) shutDown(c *command[T]) (r result[T], parked bool) {
	d := c.more
	if d == nil {
		d = &details[T]{}
	}
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

// idle reports whether no item is being processed, counting those taken from ready beyond the
// takes the owner has applied: a worker looping from Done to Get may take its next item before
// the owner applies its Done, and client-go's drain then waits for that item too.
func (q *Queue[T]) idle() bool {
	return q.core.Processing() == 0 && (q.ready == nil || q.taken.Load() <= q.fifo.Started())
}

func (q *Queue[T]) releaseDrainers() {
	for _, reply := range q.drainers {
		q.answer(reply, result[T]{})
	}
	q.drainers = nil
}

// finished reports whether the owner may leave: shutdown has begun and no drain waits.
func (q *Queue[T]) finished() bool { return q.core.Closed() && len(q.drainers) == 0 }

// Abandon shuts q down without waiting, for a queue no caller can reach: the root package calls
// it from a cleanup (runtime.AddCleanup) of the value its callers hold. It does nothing once
// shutdown has begun, nor in a testing/synctest bubble, whose channels a cleanup, outside it,
// may not touch (the process would end); the bubble reports the goroutine left instead.
func (q *Queue[T]) Abandon() {
	if !q.bubbled && !q.stopping.Load() {
		q.send(command[T]{op: opShutDown})
	}
}

// inBubble reports whether the calling goroutine runs in a testing/synctest bubble, as the
// header of its stack trace says: "goroutine 7 [running, synctest bubble 1]:".
func inBubble() bool {
	var buf [128]byte
	header, _, _ := bytes.Cut(buf[:runtime.Stack(buf[:], false)], []byte("\n"))
	return bytes.Contains(header, []byte("synctest bubble"))
}
