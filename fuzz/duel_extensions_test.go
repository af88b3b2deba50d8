package fuzz

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/actorqueue/workqueue"
)

// The duel's calls of the library's extensions (workqueue.TypedExtensions).

// offBeat puts the end of every context half a millisecond off the instants anything else
// happens at: every other duration the targets decode is a whole number of milliseconds, and
// calls come at whole milliseconds. So a context never ends at the instant an item arrives,
// where the scheduler would decide whether the getter takes it or gives up. Each context of a
// duel also ends a microsecond later than the one before it would at the same delay (see
// duel.separate), so that no two end together: of two drains giving up at once, which one
// reports the items in flight would be the scheduler's choice too.
const offBeat = 500 * time.Microsecond

// ending is how the context of a call ends.
type ending int

const (
	endedBefore ending = iota // cancelled before the call
	timesOut                  // its deadline passes
	cancelled                 // its cancel is called
	neverEnds                 // context.Background
	endings
)

// end is an ending, and for timesOut and cancelled the time from the call until it comes.
type end struct {
	how   ending
	after time.Duration
}

// decodeEnd reads an end from in.
func decodeEnd(in *input) end {
	e := end{how: ending(in.pick(int(endings)))}
	if e.how == timesOut || e.how == cancelled {
		e.after = offBeat + choose(in, 0, time.Millisecond, 5*time.Millisecond, 10*time.Millisecond,
			50*time.Millisecond, time.Second)
	}
	return e
}

// context returns a context that ends as e says, counting from now, and the function that
// releases it.
func (e end) context() (context.Context, context.CancelFunc) {
	switch e.how {
	case endedBefore:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	case timesOut:
		return context.WithTimeout(context.Background(), e.after)
	case cancelled:
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(e.after, cancel)
		return ctx, func() { timer.Stop(); cancel() }
	}
	return context.Background(), func() {}
}

func (e end) String() string {
	switch e.how {
	case endedBefore:
		return "cancelled"
	case timesOut:
		return fmt.Sprintf("timeout %v", e.after)
	case cancelled:
		return fmt.Sprintf("cancel after %v", e.after)
	}
	return "background"
}

// separate returns e ending one more microsecond later than the contexts made so far.
func (d *duel[T]) separate(e end) end {
	if e.after > 0 {
		d.contexts++
		e.after += time.Duration(d.contexts) * time.Microsecond
	}
	return e
}

// extensions returns q's extensions.
func extensions[T comparable](q workqueue.TypedInterface[T]) workqueue.TypedExtensions[T] {
	return q.(workqueue.TypedExtensions[T])
}

// extended reports whether the queue has the library's extensions: the queues around a queue
// of another package do not.
func (d *duel[T]) extended() bool {
	_, ok := d.real.(workqueue.TypedExtensions[T])
	return ok
}

func (d *duel[T]) addBatch(items []T) {
	d.call(fmt.Sprintf("AddBatch(%#v)", items), "AddBatch", func(q workqueue.TypedInterface[T]) string {
		extensions(q).AddBatch(items...)
		return ""
	})
}

// getWithContext starts a GetWithContext on each side, with a context that ends as e says,
// then lets wait pass, as get does.
func (d *duel[T]) getWithContext(e end, wait time.Duration) []event[T] {
	e = d.separate(e)
	d.spawn("GetWithContext", func(q workqueue.TypedInterface[T]) event[T] {
		ctx, release := e.context()
		defer release()
		item, shutdown, err := extensions(q).GetWithContext(ctx)
		switch {
		case err != nil:
			return event[T]{text: ": " + err.Error()}
		case shutdown:
			return event[T]{text: ": shutdown"}
		}
		return event[T]{text: fmt.Sprintf(": %#v", item), item: item, got: true}
	})
	time.Sleep(wait)
	return d.settle(fmt.Sprintf("GetWithContext(%v), wait %v", e, wait), "", "")
}

// shutDownWithDrainContext starts a ShutDownWithDrainContext on each side, with a context
// that ends as e says. Its event tells the items in flight it returned, sorted, and the error.
func (d *duel[T]) shutDownWithDrainContext(e end) {
	e = d.separate(e)
	d.spawn("ShutDownWithDrainContext", func(q workqueue.TypedInterface[T]) event[T] {
		ctx, release := e.context()
		defer release()
		inFlight, err := extensions(q).ShutDownWithDrainContext(ctx)
		texts := make([]string, len(inFlight))
		for i, item := range inFlight {
			texts[i] = fmt.Sprintf("%#v", item)
		}
		slices.Sort(texts)
		return event[T]{text: fmt.Sprintf(": %v, %v", texts, err)}
	})
	d.settle(fmt.Sprintf("ShutDownWithDrainContext(%v)", e), "", "")
}

// bounded is a model that knows how far the queue's Snapshot may be from its own.
type bounded interface {
	// snapshotBounds returns the model's Snapshot, whose OldestInFlight is the least the
	// queue may answer, and the most it may answer.
	snapshotBounds() (s workqueue.Snapshot, most time.Duration)
}

// snapshot compares the counts of the queue's Snapshot with the model's, and its
// OldestInFlight with the model's bounds.
func (d *duel[T]) snapshot() {
	got := extensions(d.real).Snapshot()
	want, most := d.model.(bounded).snapshotBounds()
	oldest := fmt.Sprintf("from %v to %v", want.OldestInFlight, most)
	if got.OldestInFlight >= want.OldestInFlight && got.OldestInFlight <= most {
		oldest = got.OldestInFlight.String()
	}
	d.settle("Snapshot", describe(got, got.OldestInFlight.String()), describe(want, oldest))
}

// describe returns the counts of s, with oldest for its OldestInFlight.
func describe(s workqueue.Snapshot, oldest string) string {
	return fmt.Sprintf("Queued %d, Processing %d, Dirty %d, Delayed %d, OldestInFlight %s, ShuttingDown %v",
		s.Queued, s.Processing, s.Dirty, s.Delayed, oldest, s.ShuttingDown)
}
