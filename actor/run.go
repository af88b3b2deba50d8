package actor

import "time"

// start arms the alarm, in the caller's goroutine, so that a queue on an injected clock waits
// on it by the time its constructor returns, as client-go's does; then starts the owner.
func (q *Queue[T]) start() {
	a := &alarm{clock: q.alarmWith}
	a.set(q.deadline())
	go q.run(a)
}

// run is the owner goroutine: it takes turns until the queue has shut down, then hands the
// state over. Every panic of the code it runs is recovered (see each); runtime.Goexit cannot
// be, and would leave every caller waiting forever, so run turns it into a panic that says so.
func (q *Queue[T]) run(a *alarm) {
	exited := false
	defer func() {
		if p := recover(); p != nil {
			panic(p) // from a clock, which the owner does not recover: the process ends
		} else if !exited {
			panic("workqueue: code run by a queue's goroutine (a metric, a custom storage, a group " +
				"function, a clock) called runtime.Goexit, as t.FailNow and t.Fatal do; it must not: use t.Error")
		}
	}()
	for !q.finished() {
		q.turn(a)
	}
	q.handOver()
	exited = true
	a.set(time.Time{}) // releases the timer
	close(q.exited)
}

// turn collects the pending commands, or sleeps until a command, a nudge or the alarm; applies
// them; does what time brings; hands items out; and re-arms the alarm.
func (q *Queue[T]) turn(a *alarm) {
	q.now = time.Time{}
	commands := q.mailbox.collect(false)
	if commands == nil {
		select {
		case <-q.mailbox.wake:
		case <-a.c:
			a.fired()
		}
		commands = q.mailbox.collect(true)
	}
	if commands != nil {
		q.applyChain(commands)
	}
	q.catchUp()
	q.refill()
	q.publish()
	a.set(q.deadline())
}

// applyChain applies a chain of commands, in order, and recycles it.
func (q *Queue[T]) applyChain(chain *segment[T]) {
	for s := chain; s != nil; s = s.next {
		q.prefetch(s.commands)
		q.execAll(s.commands)
		q.applied += uint64(len(s.commands))
	}
	q.mailbox.recycle(chain)
}

// execAll applies commands in order. One that panics is answered with the panic (see fail).
func (q *Queue[T]) execAll(commands []command[T]) {
	each(len(commands), func(i int) { q.exec(&commands[i]) }, func(i int, p any) { q.fail(&commands[i], p) })
}

// prefetch reads ahead the slots the adds among commands will touch, once a producer far ahead
// of the workers has filled the FIFO beyond the cache.
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
	close(q.handover)
	q.settle()
	q.release()
}
