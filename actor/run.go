package actor

// run is the owner goroutine: turn after turn it applies commands and what time brings, until
// the queue has shut down; then it hands the state over.
func (q *Queue[T]) run() {
	defer close(q.exited)
	a := alarm{clock: q.alarmWith}
	defer a.stop()
	for !q.m.finished() {
		q.turn(&a)
	}
	q.handOver()
}

// turn takes the pending commands, or sleeps until a command or the alarm comes; applies them;
// posts the delayed items that have fallen due; refills ready and re-arms the alarm. A due item
// is applied after the commands sent before it fell due, and before those sent after: a flood
// of commands cannot hold it back.
func (q *Queue[T]) turn(a *alarm) {
	m := q.m
	m.beginTurn()
	commands := q.mailbox.take()
	if commands == nil {
		select {
		case <-q.mailbox.wake:
		case <-a.c:
			a.fired()
		}
		commands = q.mailbox.take()
	}
	if commands != nil {
		q.apply(commands)
	}
	m.wake()
	m.refill()
	a.set(m.deadline())
}

// apply applies a chain of commands taken from the mailbox, in order, and recycles it.
func (q *Queue[T]) apply(chain *segment[T]) {
	for s := chain; s != nil; s = s.next {
		for i := range s.commands {
			q.m.exec(&s.commands[i])
		}
	}
	q.mailbox.recycle(chain)
}

// handOver gives the state up: from now on callers apply their own commands (see send).
func (q *Queue[T]) handOver() {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	close(q.handover)
	q.drainMailbox()
}
