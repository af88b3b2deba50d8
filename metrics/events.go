package metrics

import "time"

// Kind is what a metric [Event] records.
type Kind uint8

const (
	// KindAdded: Item, of Priority, became pending (client-go counts an add).
	KindAdded Kind = iota + 1
	// KindStarted: Item, of Priority, was handed out to a worker.
	KindStarted
	// KindReturned: Item, of Priority, handed out, went back to the queue unprocessed.
	KindReturned
	// KindFinished: the processing of Item ended.
	KindFinished
	// KindReprioritized: a pending item moved from priority From to Priority.
	KindReprioritized
	// KindRetried: an item was added with a delay to a priority queue.
	KindRetried
	// KindDelayed: N items wait in the delay heap.
	KindDelayed
	// KindAbsorbed: an add of Item restarted the debounce window it was waiting out.
	KindAbsorbed
	// KindDebouncing: N items wait out a debounce window.
	KindDebouncing
)

// Event is one change a queue's core reports for its metrics. The cores (packages queue and
// queue/priority) return events rather than record them: they run no foreign code of their
// own, and their shell records each event, at an instant of its choosing, with [Queue.Record].
type Event[T comparable] struct {
	Kind     Kind
	Item     T
	Priority int
	From     int // KindReprioritized only
	N        int // KindDelayed and KindDebouncing only
	// Since is, for a queue whose core keeps the instants (a FIFO queue, see Config.Priority),
	// when Item was added (KindStarted) or taken (KindFinished; zero if it never said); the
	// queue latency and the work duration are measured from it.
	Since time.Time
}

// Record records e at the instant now. It does nothing on a nil Queue.
func (m *Queue[T]) Record(e Event[T], now time.Time) {
	switch e.Kind {
	case KindAdded:
		m.Added(e.Item, e.Priority, now)
	case KindStarted:
		m.started(e.Item, e.Priority, e.Since, now)
	case KindReturned:
		m.Returned(e.Item, e.Priority, now)
	case KindFinished:
		m.finished(e.Item, e.Since, now)
	case KindReprioritized:
		m.Reprioritized(e.From, e.Priority)
	case KindRetried:
		m.Retried()
	case KindDelayed:
		m.SetDelayed(e.N)
	case KindAbsorbed:
		m.Absorbed()
	case KindDebouncing:
		m.SetDebouncing(e.N)
	}
}

// Events holds the events a core reports since its shell last took them, oldest first. Its
// zero value drops every event; [NewEvents](true) makes one that keeps them. It is not safe
// for concurrent use.
type Events[T comparable] struct {
	on   bool
	list []Event[T]
}

// NewEvents returns an empty Events that keeps events when on.
func NewEvents[T comparable](on bool) Events[T] { return Events[T]{on: on} }

// On reports whether events are kept: a core need not work out one that would be dropped.
func (e *Events[T]) On() bool { return e.on }

// Add keeps ev, when events are kept.
func (e *Events[T]) Add(ev Event[T]) {
	if e.on {
		e.list = append(e.list, ev)
	}
}

// Take returns the events kept since the last call, oldest first, and forgets them. The slice
// is the buffer of e, good until the next Add: the shell records the events, then clears
// them, so that the buffer holds no item.
func (e *Events[T]) Take() []Event[T] {
	list := e.list
	e.list = e.list[:0]
	return list
}
