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

// turn waits for a command or the alarm, applies a batch of commands, releases the delayed
// items that are due, refills ready and re-arms the alarm.
func (q *Queue[T]) turn(a *alarm) {
	m := &q.m
	select {
	case c := <-q.mailbox:
		m.exec(c)
		q.applyBatch()
	case <-a.c:
		a.fired()
	}
	m.wake()
	m.refill()
	a.set(m.deadline())
}

// applyBatch applies the commands waiting in the mailbox, up to a batch, so that a flood of
// commands cannot hold back the delayed items that fall due.
func (q *Queue[T]) applyBatch() {
	for range batchSize - 1 {
		select {
		case c := <-q.mailbox:
			q.m.exec(c)
		default:
			return
		}
	}
}

// handOver gives the state up: from now on callers apply their own commands (see send).
func (q *Queue[T]) handOver() {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	close(q.handover)
	q.drainMailbox()
}
