package actor

import (
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/limiter"
)

// Limiter is a rate limiter as a queue uses it, with what the queue counts of the retries it
// asks for. Get one with [Queue.Adopt].
//
// A limiter of package limiter cannot panic, and the queue it is passed to adopts it, unless
// another queue has already: the queue's owner then calls it directly from its own goroutine,
// and calls made to it elsewhere are handed to that owner (see limiter.Adopt). Any other
// limiter is code of others, which may block, panic or call back into the queue: every queue
// calls it in the caller's goroutine, as client-go does. A queue releases its limiter when its
// owner hands the state over at shutdown; the queue then calls it as it calls any other.
type Limiter[T comparable] struct {
	limiter limiter.RateLimiter[T]
	safe    atomic.Bool        // adopted: the owner calls it, through adopted
	adopted limiter.Adopted[T] // for the owner's calls, while safe
	retries limiter.Retries[T]
}

// Adopt returns the Limiter through which q asks l, with the retries r. A nil l is accepted,
// as client-go's queues accept it: the queue works without rate limiting, and asking the
// limiter panics in the caller with a message naming constructor (see limiter.Missing). Adopt
// before q's owner first asks the limiter.
func (q *Queue[T]) Adopt(constructor string, l limiter.RateLimiter[T], r limiter.Retries[T]) *Limiter[T] {
	if limiter.IsNil(l) {
		l = limiter.Missing[T](constructor)
	}
	own := &Limiter[T]{limiter: l, retries: r}
	q.tomb.Lock()
	defer q.tomb.Unlock()
	select {
	case <-q.handover: // shut down already: nothing would release it
		return own
	default:
	}
	if a, ok := limiter.Adopt(l, q); ok {
		own.adopted = a
		own.safe.Store(true)
	}
	// Released at shutdown even if adopted only in part: a MaxOf's parts taken before one
	// another queue holds stay q's until then.
	q.adopted = append(q.adopted, own)
	return own
}

// release gives back the limiters q adopted. The owner calls it as it hands the state over,
// holding the handover lock, once it has applied its last command.
func (q *Queue[T]) release() {
	for _, l := range q.adopted {
		l.safe.Store(false)
		limiter.Release(l.limiter, q)
	}
	q.adopted = nil
}

// Do runs f in q's owner goroutine, between two commands, and waits for it, raising its panic:
// the calls to a limiter q adopted made outside q (see limiter.Owner). Once q has shut down, f
// runs in the caller, as any command then does. Calling Do from q's owner goroutine, from its
// metrics or its storage, deadlocks.
func (q *Queue[T]) Do(f func()) {
	q.call(command[T]{op: opDo, more: &details[T]{do: f}})
}

// whenAt asks the limiter how long item should wait, at the instant now.
func (l *Limiter[T]) whenAt(item T, now time.Time) time.Duration {
	if l.safe.Load() {
		return l.adopted.WhenAt(item, now)
	}
	return limiter.WhenAt(l.limiter, item, now)
}

// forget makes the limiter forget item's failures.
func (l *Limiter[T]) forget(item T) {
	if l.safe.Load() {
		l.adopted.Forget(item)
		return
	}
	l.limiter.Forget(item)
}

// numRequeues returns the failures the limiter counts for item.
func (l *Limiter[T]) numRequeues(item T) int {
	if l.safe.Load() {
		return l.adopted.NumRequeues(item)
	}
	return l.limiter.NumRequeues(item)
}

// count counts, in the owner, one rate-limited requeue of item through l, and returns zero if
// the item may be requeued, or its attempts if the queue gives up on it, having dropped its
// count. The owner then makes the limiter forget it, if the owner calls the limiter (see
// forgetGiven), once the items added with it are.
func (q *Queue[T]) count(item T, l *Limiter[T]) (gaveUp int) {
	if l.retries.Max == 0 {
		return 0
	}
	n := q.counts[item] + 1
	if n <= l.retries.Max {
		if q.counts == nil {
			q.counts = make(map[T]int)
		}
		q.counts[item] = n
		return 0
	}
	delete(q.counts, item)
	return n
}

// forgetGiven makes l forget the items the owner gave up on, if the owner calls l; the caller
// that hears of them makes any other limiter forget them (see giveUp).
func (q *Queue[T]) forgetGiven(l *Limiter[T], items ...T) {
	if l.safe.Load() {
		for _, item := range items {
			l.forget(item)
		}
	}
}

// giveUp gives up on items of l, each after attempts (see limiter.Retries.Abandon), once the owner
// has counted them: a limiter the owner does not call forgets each here.
func (q *Queue[T]) giveUp(l *Limiter[T], attempts int, items ...T) {
	l.retries.Abandon(func(item T) {
		if !l.safe.Load() {
			l.forget(item)
		}
	}, attempts, items...)
}
