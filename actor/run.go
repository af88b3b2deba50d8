package actor

import "runtime"

// start starts the owner goroutine. It arms the alarm first, in the caller's goroutine, so
// that a queue whose timers run from its creation (on an injected clock, see base.injected and
// base.startHeartbeat) waits on its clock by the time its constructor returns, as client-go's
// delaying queue does.
func (q *Queue[T]) start() {
	a := &alarm{clock: q.alarmWith}
	a.set(q.m.deadline())
	go q.run(a, &alarm{}, false)
}

// run is the owner goroutine: turn after turn it applies commands and what time brings, until
// the queue has shut down; then it hands the state over. a is the alarm on the queue's clock;
// ticks, on the real clock, serves the unfinished-work ticks that do not follow the queue's
// clock (see newShell), and is never armed otherwise. resumed says it takes over from an owner
// goroutine that ended in the middle of a turn (see succeed).
func (q *Queue[T]) run(a, ticks *alarm, resumed bool) {
	cut := true // until the handover is through (see succeed)
	defer func() {
		if cut {
			q.succeed(a, ticks)
		}
	}()
	if resumed && q.cuts <= maxCuts { // the turn cut short may have been in its last steps
		q.endTurn(a, ticks)
		q.cuts = 0
	}
	for !q.m.finished() {
		q.turn(a, ticks)
		q.cuts = 0
	}
	q.handOver()
	cut = false
	q.exit(a, ticks)
}

// exit stops the alarms and marks the owner goroutine as ended.
func (q *Queue[T]) exit(a, ticks *alarm) {
	a.stop()
	ticks.stop()
	close(q.exited)
}

// succeed takes over from an owner goroutine that foreign code it ran (a metric, a storage, a
// clock, the inner queue of a Delayer) ended with runtime.Goexit, as a test's fake does when it
// calls t.FailNow. Goexit cannot be stopped, and in client-go it ends only the goroutine that
// called that code: the caller's, or a loop of the queue's own. Here it would end the goroutine
// every caller depends on. The command that ran the code is answered with the Goexit (see
// execFrom), and a new owner goroutine carries on from the next one; or, once the state is
// handed over, callers apply their commands themselves, and the owner ends as it would have.
// Every panic is recovered before it gets here, but one from a clock, which ends the process as
// before.
func (q *Queue[T]) succeed(a, ticks *alarm) {
	select {
	case <-q.handover:
		defer q.exit(a, ticks) // even if a command applied below ends the goroutine again
		defer func() {
			q.tomb.Lock()
			q.release()
			q.tomb.Unlock()
		}()
		q.settle(nil) // the commands put back, which their callers left to the owner
	default:
		q.cuts++
		go q.run(a, ticks, true)
	}
}

// maxCuts is how many owner goroutines in a row may end in the last steps of a turn (each
// hand-out to a waiting getter whose metrics end it, say) before the next owner stops trying to
// finish that turn, and waits for a command instead: code that always ends the goroutine (a
// clock whose After calls t.FailNow) then ends a few per command, not one after another
// forever.
const maxCuts = 8

// goexit is the fault that answers a command whose foreign code called runtime.Goexit: its
// caller then calls runtime.Goexit too (see raiseFault). With nobody waiting, it is dropped, not
// kept for the next caller (see base.keep), who has nothing to do with it.
type goexit struct{}

// raiseFault raises in the caller the fault an answer carries: a panic, or a Goexit.
func raiseFault(fault any) {
	if _, ok := fault.(goexit); ok {
		runtime.Goexit()
	}
	panic(fault)
}

// turn collects the pending commands, or sleeps until a command, a getter's nudge or an alarm
// comes; applies them; posts the delayed items that have fallen due; refills ready and re-arms
// the alarms. Once it has applied the turn's commands, the owner looks at the clock and posts
// the release of what is then due to its own mailbox: a due item is applied after every
// command put before that post (some may have been sent after it fell due) and before every
// command put after it, so that a flood of commands cannot hold it back.
func (q *Queue[T]) turn(a, ticks *alarm) {
	m := q.m
	m.beginTurn()
	var rest resting
	if !q.waits {
		rest = m.resting()
	}
	commands := q.mailbox.collectOrRest(rest)
	if commands == nil {
		select {
		case <-q.mailbox.wake:
		case <-a.c:
			a.fired()
		case <-ticks.c:
			ticks.fired()
		}
		commands = q.mailbox.wakeUp()
	}
	if commands != nil {
		q.apply(commands)
	}
	q.endTurn(a, ticks)
}

// endTurn does the last steps of a turn: what time brings, the refill of ready, the alarms.
func (q *Queue[T]) endTurn(a, ticks *alarm) {
	q.m.catchUp()
	q.m.refill()
	a.set(q.m.deadline())
	ticks.set(q.m.tickDeadline())
}

// apply applies a chain of commands collected from the mailbox, in order, and recycles it.
func (q *Queue[T]) apply(chain *segment[T]) {
	for s := chain; s != nil; s = s.next {
		q.m.prefetch(s.commands)
		q.applying = s
		q.execAll(s.commands)
	}
	q.applying = nil
	q.mailbox.recycle(chain)
}

// execAll applies commands in order. A command whose rules panic is answered with the panic
// (see rules.fail), and the commands after it are applied as usual.
func (q *Queue[T]) execAll(commands []command[T]) {
	for i := 0; i < len(commands); {
		i = q.execFrom(commands, i)
	}
}

// execFrom applies commands from the i-th on and returns len(commands); if one panics, it
// answers that one with the panic and returns the index after it. One recover thus serves a
// whole run of commands, rather than each command setting up its own.
func (q *Queue[T]) execFrom(commands []command[T], i int) (next int) {
	defer func() {
		switch p := recover(); {
		case p != nil:
			q.m.fail(&commands[next], p)
			next++
		case next < len(commands): // runtime.Goexit (see succeed): the goroutine ends
			rest := commands[next:]
			if q.m.blameGoexit() { // the command itself ended the goroutine
				q.m.fail(&commands[next], goexit{})
				rest = rest[1:]
			}
			q.mailbox.putBack(rest, q.applying)
			q.applying = nil
		}
	}()
	for next = i; next < len(commands); next++ {
		q.m.exec(&commands[next])
	}
	return next
}

// handOver gives the state up: from now on callers apply their own commands (see send).
func (q *Queue[T]) handOver() {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	close(q.handover)
	q.drainMailbox()
	q.release()
}
