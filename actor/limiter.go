package actor

import "github.com/actorqueue/workqueue/limiter"

// Adopt returns the handle through which q asks l, with the retries r (see limiter.Handle): q's
// owner adopts l if it can, until it hands the state over. A nil l panics in the caller that
// asks it, naming constructor. Adopt before q's owner first asks l.
func (q *Queue[T]) Adopt(constructor string, l limiter.RateLimiter[T], r limiter.Retries[T]) *limiter.Handle[T] {
	h := limiter.NewHandle(constructor, l, r)
	q.tomb.Lock()
	defer q.tomb.Unlock()
	select {
	case <-q.handover: // shut down already: nothing would release it
		return h
	default:
	}
	h.Adopt(q)
	q.adopted = append(q.adopted, h) // even if adopted only in part
	return h
}

// release gives back the limiters q adopted, as the owner hands the state over.
func (q *Queue[T]) release() {
	q.tomb.Lock()
	defer q.tomb.Unlock()
	for _, h := range q.adopted {
		h.Release(q)
	}
	q.adopted = nil
}

// Do runs f in q's owner goroutine, between two commands, and waits for it, raising its panic:
// the calls to a limiter q adopted made outside q (see limiter.Owner). After the handover, f
// runs in the caller.
func (q *Queue[T]) Do(f func()) {
	q.call(command[T]{op: opDo, more: &details[T]{do: f}})
}
