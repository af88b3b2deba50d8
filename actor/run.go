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
	for i := range commands {
		m.exec(&commands[i])
	}
	if commands != nil {
		q.mailbox.recycle(commands)
	}
	m.wake()
	m.refill()
	a.set(m.deadline())
}

// handOver gives the state up: from now on callers apply their own commands (see send).
func (q *Queue[T]) handOver() {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	close(q.handover)
	q.drainMailbox()
}
