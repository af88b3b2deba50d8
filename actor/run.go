package actor

import "time"

// start arms the alarm, in the caller's goroutine, and starts the owner goroutine: a queue whose
// timers run from its creation (on an injected clock, see timers) then waits on its clock by
// the time its constructor returns, as client-go's delaying queue does.
func (q *Queue[T]) start() {
	a := &alarm{clock: q.alarmWith}
	a.set(q.deadline())
	go q.run(a)
}

// run is the owner goroutine: it takes turns until the queue has shut down, then hands the
// state over. Every panic of the code it runs is recovered (see each). runtime.Goexit cannot
// be: called by that code (a test's fake metric calling t.FailNow), it would end the goroutine
// every caller depends on, and they would wait forever. run turns it into a panic that says so,
// which ends the process.
func (q *Queue[T]) run(a *alarm) {
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
		q.turn(a)
	}
	q.handOver()
	exited = true
	a.stop()
	close(q.exited)
}

// turn collects the pending commands, or sleeps until a command, a nudge or the alarm comes;
// applies them; does what time brings (see catchUp); hands items out; and re-arms the alarm.
func (q *Queue[T]) turn(a *alarm) {
	q.now = time.Time{}
	commands := q.mailbox.collect()
	if commands == nil {
		select {
		case <-q.mailbox.wake:
		case <-a.c:
			a.fired()
		}
		commands = q.mailbox.wakeUp()
	}
	if commands != nil {
		q.applyChain(commands)
	}
	q.catchUp()
	q.refill()
	a.set(q.deadline())
}

// applyChain applies a chain of commands collected from the mailbox, in order, and recycles it.
func (q *Queue[T]) applyChain(chain *segment[T]) {
	for s := chain; s != nil; s = s.next {
		q.prefetch(s.commands)
		q.execAll(s.commands)
	}
	q.mailbox.recycle(chain)
}

// execAll applies commands in order. One that panics is answered with the panic (see fail),
// and the commands after it are applied as usual.
func (q *Queue[T]) execAll(commands []command[T]) {
	each(len(commands), func(i int) { q.exec(&commands[i]) }, func(i int, p any) { q.fail(&commands[i], p) })
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
