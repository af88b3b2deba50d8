package fuzz

import (
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"
)

// FuzzBadInput is FuzzQueue for a queue of any, with what a caller should not do: items that
// cannot be map keys (they must panic in the caller with a workqueue: message and leave the
// queue working), items of every kind that can, delays from the most negative to the largest
// duration, and rate limiters built from arbitrary numbers (invalid ones must panic at
// construction with a workqueue: message). The model receives the same calls, so no item may
// be lost or handed out twice, no call may block where the model does not, and every
// goroutine must end at shutdown.
func FuzzBadInput(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			in := &input{data: data}
			s := choose(in, subjects[any]()...)
			var limiter *limiterSpec
			if s.level == rateLimiting {
				spec := decodeLimiter(in, wild, 2)
				if _, problem := buildChecked[any](spec); problem != "" {
					t.Fatal(problem)
				}
				if !spec.valid() {
					spec = limiterSpec{kind: exponential, a: time.Millisecond, b: time.Second}
				}
				limiter = &spec
			}
			d := newDuel(t, s, limiter)
			v := newValues()
			for calls := 0; calls < maxCalls && !in.done(); calls++ {
				badCall(d, in, v)
			}
			d.finish(v.hashable)
		})
	})
}

// badCall decodes one call from in, with any items, and makes it on both sides of d. A queue
// with the library's extensions also takes AddBatch, numbered after its level's calls; the
// other extensions take no items, and FuzzQueue has them.
func badCall(d *duel[any], in *input, v *values) {
	calls := callsOf(d.level)
	if d.extended() {
		calls++
	}
	c := in.pick(calls)
	if c == callsOf(d.level) {
		items := make([]any, in.pick(4))
		for i := range items {
			items[i] = v.decode(in, 2)
		}
		d.addBatch(items)
		return
	}
	switch c {
	case 0:
		d.add(v.decode(in, 2))
	case 1:
		d.get(choose(in, 0, time.Millisecond))
	case 2:
		d.doneHanded(in.pick(4))
	case 3:
		d.done(v.decode(in, 2))
	case 4:
		d.len()
	case 5:
		d.shutDown()
	case 6:
		d.shutDownWithDrain()
	case 7:
		d.advance(choose(in, time.Millisecond, time.Second, time.Hour, 1000*time.Hour))
	case 8:
		d.addAfter(v.decode(in, 2), wild.delay(in))
	case 9:
		d.addRateLimited(v.decode(in, 2))
	case 10:
		d.forget(v.decode(in, 2))
	case 11:
		d.numRequeues(v.decode(in, 2))
	}
}

// values decodes the items of one input. Pointers, channels and errors compare by identity,
// so it keeps a few of each, for items to be the same one again.
type values struct {
	pointers [2]*int
	channel  chan int
	err      error
	hashable []any // the items decoded that can be map keys, for NumRequeues at the end
}

func newValues() *values {
	return &values{pointers: [2]*int{new(int), new(int)}, channel: make(chan int), err: errors.New("an error")}
}

// boxed is a struct holding any value: hashable exactly when the value is.
type boxed struct{ V any }

// decode reads an item from in, and keeps the first few that can be map keys.
func (v *values) decode(in *input, depth int) any {
	item := v.item(in, depth)
	if len(v.hashable) < 16 && hashable(item) {
		v.hashable = append(v.hashable, item)
	}
	return item
}

// item reads an item from in: of many kinds, some of which cannot be map keys; depth bounds
// the nesting of structs and arrays.
func (v *values) item(in *input, depth int) any {
	kind := in.pick(14)
	if depth == 0 && kind >= 11 {
		kind = 0
	}
	switch kind {
	case 0:
		return in.pick(3)
	case 1:
		return int64(in.pick(3))
	case 2:
		return choose(in, "", "a", "b")
	case 3:
		return nil
	case 4:
		return in.pick(2) == 0
	case 5:
		return choose(in, 0, 1.5, math.Inf(1), math.Inf(-1), math.NaN())
	case 6:
		return v.pointers[in.pick(2)]
	case 7:
		return choose[any](in, v.channel, v.err)
	case 8:
		return []byte{in.byte()}
	case 9:
		return map[int]int{}
	case 10:
		return func() {}
	case 11:
		return boxed{v.item(in, depth-1)}
	case 12:
		return [2]any{v.item(in, depth-1), v.item(in, depth-1)}
	default:
		return &boxed{v.item(in, depth-1)}
	}
}

// hashable reports whether item can be a map key.
func hashable(item any) bool { return catch(func() { _ = map[any]bool{item: true} }) == "" }
