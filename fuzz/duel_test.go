package fuzz

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
)

// duel drives a queue of the library and a model of it through the same calls, one at a time,
// in a synctest bubble, and compares everything they answer. A call that may block (Get,
// ShutDown, ShutDownWithDrain) runs in a goroutine of its own on each side and reports an
// event when it returns; after every call the bubble settles and both sides must have
// reported the same events, at the same fake instant. Any difference fails the test with the
// calls so far.
type duel[T comparable] struct {
	t        *testing.T
	level    level
	ticks    bool // sleeps are cut to a second: see subject.ticks
	real     workqueue.TypedInterface[T]
	model    workqueue.TypedInterface[T] // the reference queue
	start    time.Time
	sides    [2]inbox[T] // events of the real queue, then of the model
	handed   []T         // items handed out and not yet passed to Done, oldest first
	contexts int         // contexts made with an end after the call: see offBeat
	log      []string
}

// event is the return of a blocking call.
type event[T any] struct {
	text string // what returned, with what, and when
	item T      // the item, for a Get that got one
	got  bool
}

// inbox collects the events of one side.
type inbox[T any] struct {
	mu     sync.Mutex
	events []event[T]
}

func (b *inbox[T]) put(e event[T]) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, e)
}

func (b *inbox[T]) take() []event[T] {
	b.mu.Lock()
	defer b.mu.Unlock()
	events := b.events
	b.events = nil
	return events
}

// newDuel builds a queue as s says, and the model, inside the current bubble; a rate-limiting
// queue needs limiter, which must be valid. It registers a cleanup that shuts both down, so
// that a failure leaves no goroutine behind.
func newDuel[T comparable](t *testing.T, s subject[T], limiter *limiterSpec) *duel[T] {
	var real workqueue.TypedInterface[T]
	var m *model[T]
	if limiter == nil {
		real, m = s.build(nil), newModel[T](nil)
	} else {
		real, m = s.build(build[T](*limiter)), newModel(ref[T](*limiter))
	}
	m.asks = s.asks
	return startDuel(t, s.name, s.level, s.ticks, real, m, limiter)
}

// startDuel returns a duel between real and model, which were built as name says, with
// limiter (nil for none), and registers the cleanup that shuts both down.
func startDuel[T comparable](t *testing.T, name string, l level, ticks bool, real, model workqueue.TypedInterface[T], limiter *limiterSpec) *duel[T] {
	d := &duel[T]{t: t, level: l, ticks: ticks, real: real, model: model, start: time.Now(), log: []string{"queue: " + name}}
	if limiter != nil {
		d.log = append(d.log, "limiter: "+limiter.String())
	}
	t.Cleanup(func() {
		d.spawn("ShutDown", func(q workqueue.TypedInterface[T]) event[T] { q.ShutDown(); return event[T]{} })
		synctest.Wait()
	})
	return d
}

// call applies a call that does not block to both sides and compares what they return, as
// text, or that both panicked with a workqueue: message naming method.
func (d *duel[T]) call(desc, method string, f func(q workqueue.TypedInterface[T]) string) {
	real := answer(method, func() string { return f(d.real) })
	model := answer(method, func() string { return f(d.model) })
	d.settle(desc, real, model)
}

// answer returns what f returns, or "panic" if it panics with a message that starts with
// "workqueue: method:", or the panic if it panics otherwise.
func answer(method string, f func() string) string {
	var out string
	fault := catch(func() { out = f() })
	switch {
	case fault == "":
		return out
	case strings.HasPrefix(fault, "workqueue: "+method+": "):
		return "panic"
	}
	return "panic without a workqueue: " + method + " message: " + fault
}

// spawn starts a call that may block on each side, in a goroutine of its own. Its event is
// timed when it returns; a panic is an event too.
func (d *duel[T]) spawn(method string, f func(q workqueue.TypedInterface[T]) event[T]) {
	for i, q := range []workqueue.TypedInterface[T]{d.real, d.model} {
		go func() {
			var e event[T]
			if fault := catch(func() { e = f(q) }); fault != "" {
				e = event[T]{text: " panicked: " + fault}
			}
			e.text = fmt.Sprintf("%s%s at +%v", method, e.text, time.Since(d.start))
			d.sides[i].put(e)
		}()
	}
}

// settle lets the bubble settle, then compares the answers and the events of both sides. It
// returns the model's events.
func (d *duel[T]) settle(desc, real, model string) []event[T] {
	d.t.Helper()
	synctest.Wait()
	realEvents, modelEvents := d.sides[0].take(), d.sides[1].take()
	realText, modelText := texts(realEvents), texts(modelEvents)
	line := desc
	if real != "" {
		line += " = " + real
	}
	if realText != "" {
		line += "; " + realText
	}
	d.log = append(d.log, line)
	if real != model || realText != modelText {
		d.t.Fatalf("the queue departs from the model at the last call:\n\t%s\nthe model: %s; %s",
			strings.Join(d.log, "\n\t"), model, modelText)
	}
	for _, e := range modelEvents {
		if e.got {
			d.handed = append(d.handed, e.item)
		}
	}
	return modelEvents
}

// texts returns the events as one line, sorted: which of several blocked getters gets which
// item is not specified.
func texts[T any](events []event[T]) string {
	lines := make([]string, len(events))
	for i, e := range events {
		lines[i] = e.text
	}
	slices.Sort(lines)
	return strings.Join(lines, ", ")
}

func (d *duel[T]) add(item T) {
	d.call(fmt.Sprintf("Add(%#v)", item), "Add", func(q workqueue.TypedInterface[T]) string {
		q.Add(item)
		return ""
	})
}

// get starts a Get on each side, then lets wait pass. The getters may still be blocked then;
// their events come later.
func (d *duel[T]) get(wait time.Duration) []event[T] {
	d.spawn("Get", func(q workqueue.TypedInterface[T]) event[T] {
		item, shutdown := q.Get()
		if shutdown {
			return event[T]{text: ": shutdown"}
		}
		return event[T]{text: fmt.Sprintf(": %#v", item), item: item, got: true}
	})
	time.Sleep(wait)
	return d.settle(fmt.Sprintf("Get, wait %v", wait), "", "")
}

// done calls Done with item, which is no longer handed out, if it was.
func (d *duel[T]) done(item T) {
	if i := slices.Index(d.handed, item); i >= 0 {
		d.handed = slices.Delete(d.handed, i, i+1)
	}
	d.callDone(item)
}

// doneHanded calls Done with the handed item at i (modulo their number), if any was handed.
func (d *duel[T]) doneHanded(i int) {
	if len(d.handed) > 0 {
		i %= len(d.handed)
		item := d.handed[i]
		d.handed = slices.Delete(d.handed, i, i+1)
		d.callDone(item)
	}
}

func (d *duel[T]) callDone(item T) {
	d.call(fmt.Sprintf("Done(%#v)", item), "Done", func(q workqueue.TypedInterface[T]) string {
		q.Done(item)
		return ""
	})
}

func (d *duel[T]) len() {
	d.call("Len", "Len", func(q workqueue.TypedInterface[T]) string {
		return fmt.Sprintf("%d, ShuttingDown %v", q.Len(), q.ShuttingDown())
	})
}

func (d *duel[T]) shutDown() {
	d.spawn("ShutDown", func(q workqueue.TypedInterface[T]) event[T] { q.ShutDown(); return event[T]{} })
	d.settle("ShutDown", "", "")
}

func (d *duel[T]) shutDownWithDrain() {
	d.spawn("ShutDownWithDrain", func(q workqueue.TypedInterface[T]) event[T] {
		q.ShutDownWithDrain()
		return event[T]{}
	})
	d.settle("ShutDownWithDrain", "", "")
}

// advance lets time pass: by, or at most a second for a queue that ticks.
func (d *duel[T]) advance(by time.Duration) {
	if d.ticks {
		by = min(by, time.Second)
	}
	time.Sleep(by)
	d.settle(fmt.Sprintf("sleep %v", by), "", "")
}

func (d *duel[T]) addAfter(item T, delay time.Duration) {
	d.call(fmt.Sprintf("AddAfter(%#v, %v)", item, delay), "AddAfter", func(q workqueue.TypedInterface[T]) string {
		q.(workqueue.TypedDelayingInterface[T]).AddAfter(item, delay)
		return ""
	})
}

func (d *duel[T]) addRateLimited(item T) {
	d.call(fmt.Sprintf("AddRateLimited(%#v)", item), "AddRateLimited", func(q workqueue.TypedInterface[T]) string {
		q.(workqueue.TypedRateLimitingInterface[T]).AddRateLimited(item)
		return ""
	})
}

func (d *duel[T]) forget(item T) {
	d.call(fmt.Sprintf("Forget(%#v)", item), "Forget", func(q workqueue.TypedInterface[T]) string {
		q.(workqueue.TypedRateLimitingInterface[T]).Forget(item)
		return ""
	})
}

func (d *duel[T]) numRequeues(item T) {
	d.call(fmt.Sprintf("NumRequeues(%#v)", item), "NumRequeues", func(q workqueue.TypedInterface[T]) string {
		return fmt.Sprint(q.(workqueue.TypedRateLimitingInterface[T]).NumRequeues(item))
	})
}

// finish shuts both sides down, ends the processing of every item handed out, and takes and
// ends every item left until Get reports shutdown: nothing may be lost, and nothing may stay
// blocked. It then compares the counts, and the limiter's counts for keys.
func (d *duel[T]) finish(keys []T) {
	d.shutDown()
	for len(d.handed) > 0 {
		d.doneHanded(0)
	}
	for {
		events := d.get(0)
		if len(events) != 1 {
			d.t.Fatalf("after shutdown, Get did not return at once:\n\t%s", strings.Join(d.log, "\n\t"))
		}
		if !events[0].got {
			break
		}
		d.doneHanded(len(d.handed) - 1)
	}
	d.len()
	if d.extended() {
		d.snapshot()
	}
	if d.level == rateLimiting {
		for _, k := range keys {
			d.numRequeues(k)
		}
	}
}
