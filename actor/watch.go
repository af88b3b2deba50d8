package actor

// watched are rules that shut their queue down once stop reports true. They ask stop whenever
// the owner wakes, for a command, a due item or a heartbeat: a delay heap in front of a queue
// of another package stops, as client-go's waiting loop does, once it sees that queue begin its
// shutdown (see Config.StopWhen).
type watched[T comparable] struct {
	rules[T]
	stop    func() bool
	stopped bool // stop has reported true
}

// catchUp shuts the queue down if stop reports true, then does the work that time brings. A
// panic of stop, which is foreign code, is kept for the next caller that waits for an answer,
// as any panic with nobody waiting is.
func (w *watched[T]) catchUp() {
	if !w.stopped && !w.finished() {
		func() {
			c := command[T]{op: opShutDown}
			defer func() {
				if p := recover(); p != nil {
					w.fail(&c, p)
				}
			}()
			if w.stop() {
				w.stopped = true
				w.exec(&c)
			}
		}()
	}
	w.rules.catchUp()
}
