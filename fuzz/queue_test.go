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

// queueCall decodes one call from in and makes it on both sides of d. The calls a queue's
// level lacks are not decoded.
func queueCall(d *duel[int], in *input) {
	switch in.pick(callsOf(d.level)) {
	case 0:
		d.add(choose(in, keys...))
	case 1:
		d.get(choose(in, 0, 0, time.Millisecond, 10*time.Millisecond))
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
		d.advance(choose(in, time.Millisecond, 2*time.Millisecond, 5*time.Millisecond, 10*time.Millisecond,
			50*time.Millisecond, time.Second, time.Minute, time.Hour))
	case 8:
		d.addAfter(choose(in, keys...), choose(in, -time.Millisecond, 0, time.Millisecond, 2*time.Millisecond,
			5*time.Millisecond, 10*time.Millisecond, 50*time.Millisecond, time.Second))
	case 9:
		d.addRateLimited(choose(in, keys...))
	case 10:
		d.forget(choose(in, keys...))
	case 11:
		d.numRequeues(choose(in, keys...))
	}
}
