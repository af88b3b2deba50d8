package fuzz

import (
	"testing"
	"testing/synctest"
	"time"
)

// maxCalls bounds the calls one input makes, so that every execution stays short.
const maxCalls = 200

// keys are the items of FuzzQueue: few, so that they collide.
var keys = []int{0, 1, 2, 3}

// FuzzQueue is the differential target: the input chooses a way to build a queue, a rate
// limiter when the queue has one, and a sequence of calls, which the queue and the model both
// receive. Everything either answers must match: see duel.
func FuzzQueue(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			in := &input{data: data}
			s := choose(in, subjects[int]()...)
			var limiter *limiterSpec
			if s.level == rateLimiting {
				spec := decodeLimiter(in, tame, 2)
				limiter = &spec
			}
			d := newDuel(t, s, limiter)
			for calls := 0; calls < maxCalls && !in.done(); calls++ {
				queueCall(d, in)
			}
			d.finish(keys)
		})
	})
}

// extensionCalls is how many kinds of call the library's extensions add: a queue that has
// them numbers them after the calls of its level, so that inputs decode as they did before the
// extensions came.
const extensionCalls = 4

// queueCall decodes one call from in and makes it on both sides of d. The calls a queue's
// level lacks are not decoded, nor the extensions of a queue that lacks them.
func queueCall(d *duel[int], in *input) {
	calls := callsOf(d.level)
	if d.extended() {
		calls += extensionCalls
	}
	if c := in.pick(calls); c < callsOf(d.level) {
		clientGoCall(d, in, c)
	} else {
		extensionCall(d, in, c-callsOf(d.level))
	}
}

// clientGoCall decodes the arguments of call c of client-go's rate-limiting interface from in
// and makes it on both sides of d. They are numbered so that a level's calls come first: see
// callsOf.
func clientGoCall(d *duel[int], in *input, c int) {
	switch c {
	case 0:
		d.add(choose(in, keys...))
	case 1:
		d.get(decodeWait(in))
	case 2:
		d.doneHanded(in.pick(4))
	case 3:
		d.done(choose(in, keys...))
	case 4:
		d.len()
	case 5:
		d.shutDown()
	case 6:
		d.shutDownWithDrain()
	case 7:
		d.advance(decodeAdvance(in))
	case 8:
		d.addAfter(choose(in, keys...), decodeDelay(in))
	case 9:
		d.addRateLimited(choose(in, keys...))
	case 10:
		d.forget(choose(in, keys...))
	case 11:
		d.numRequeues(choose(in, keys...))
	}
}

// extensionCall decodes the arguments of extension call c from in and makes it on both sides
// of d.
func extensionCall(d *duel[int], in *input, c int) {
	switch c {
	case 0:
		d.addBatch(batchOf(in))
	case 1:
		d.getWithContext(decodeEnd(in), decodeWait(in))
	case 2:
		d.shutDownWithDrainContext(decodeEnd(in))
	case 3:
		d.snapshot()
	}
}

// batchOf reads up to four keys, repeats allowed, from in.
func batchOf(in *input) []int {
	items := make([]int, in.pick(5))
	for i := range items {
		items[i] = choose(in, keys...)
	}
	return items
}

// decodeWait reads how long a getter is given before the next call.
func decodeWait(in *input) time.Duration {
	return choose(in, 0, 0, time.Millisecond, 10*time.Millisecond)
}

// decodeDelay reads the delay of an add.
func decodeDelay(in *input) time.Duration {
	return choose(in, -time.Millisecond, 0, time.Millisecond, 2*time.Millisecond, 5*time.Millisecond,
		10*time.Millisecond, 50*time.Millisecond, time.Second)
}

// decodeAdvance reads how long to let time pass.
func decodeAdvance(in *input) time.Duration {
	return choose(in, time.Millisecond, 2*time.Millisecond, 5*time.Millisecond, 10*time.Millisecond,
		50*time.Millisecond, time.Second, time.Minute, time.Hour)
}
