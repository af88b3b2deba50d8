package actor

import "time"

// start starts the owner goroutine. It arms the alarm first, in the caller's goroutine, so
// that a queue whose timers run from its creation (on an injected clock, see timers) waits on
// its clock by the time its constructor returns, as client-go's delaying queue does.
func (q *Queue[T]) start() {
	a := &alarm{clock: q.alarmWith}
	a.set(q.deadline())
	go q.run(a, &alarm{})
}

// run is the owner goroutine: turn after turn it applies commands and what time brings, until
// the queue has shut down; then it hands the state over. a is the alarm on the queue's clock;
// ticks, on the real clock, serves the unfinished-work ticks that do not follow the queue's
// clock (see NewPriority), and is never armed otherwise.
//
// Every panic of the code the owner runs is recovered (see execFrom). runtime.Goexit cannot
// be: code that calls it in the owner's goroutine (a test's fake metric calling t.FailNow)
// would end the goroutine every caller depends on, and they would wait forever. The owner
// turns it into a panic that names the cause, which ends the process at once.
func (q *Queue[T]) run(a, ticks *alarm) {
	exited := false
	defer func() {
		if exited {
			return
		}
		if p := recover(); p != nil {
			panic(p) // from a clock, which the owner does not recover: the process ends
		}
		panic("workqueue: code run by a queue's goroutine (a metric, a custom storage, a group " +
			"function, a clock) called runtime.Goexit, as t.FailNow and t.Fatal do; it must not: use t.Error")
	}()
	for !q.finished() {
		q.turn(a, ticks)
	}
	q.handOver()
	exited = true
	a.stop()
	ticks.stop()
	close(q.exited)
}

// turn collects the pending commands, or sleeps until a command, a getter's nudge or an alarm
// comes; applies them; then does what time brings (see catchUp), hands items out and re-arms
// the alarms.
func (q *Queue[T]) turn(a, ticks *alarm) {
	q.now = time.Time{}
	commands := q.mailbox.collect()
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
		q.applyChain(commands)
	}
	q.catchUp()
	q.refill()
	a.set(q.deadline())
	ticks.set(q.apartAt())
}

// applyChain applies a chain of commands collected from the mailbox, in order, and recycles it.
func (q *Queue[T]) applyChain(chain *segment[T]) {
	for s := chain; s != nil; s = s.next {
		q.prefetch(s.commands)
		q.execAll(s.commands)
	}
	q.mailbox.recycle(chain)
}

// execAll applies commands in order. A command that panics is answered with the panic (see
// fail), and the commands after it are applied as usual.
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
		if p := recover(); p != nil {
			q.fail(&commands[next], p)
			next++
		}
	}()
	for next = i; next < len(commands); next++ {
		q.exec(&commands[next])
	}
	return next
}

// prefetch reads ahead the slots of the items that the adds among commands will touch, once a
// producer running ahead of the workers has filled the FIFO beyond the cache.
func (q *Queue[T]) prefetch(commands []command[T]) {
	if q.fifo == nil || !q.fifo.Outgrown() {
		return
	}
	items := q.ahead[:0]
	for i := range commands {
		if commands[i].op == opAdd {
			items = append(items, commands[i].item)
		}
	}
	q.fifo.Prefetch(items)
	clear(items) // hold no item past its processing
	q.ahead = items
}

// handOver gives the state up: from now on callers apply their own commands (see send).
func (q *Queue[T]) handOver() {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	close(q.handover)
	q.drainMailbox()
	q.release()
}
