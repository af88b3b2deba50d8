package fuzz

import (
	"math"
	"testing"
	"testing/synctest"

	"github.com/actorqueue/workqueue"
)

// FuzzPriorityQueue is the differential target of the priority queue: the input chooses how to
// build a workqueue.TypedPriorityQueue (controller-runtime's default limiter, a limiter it
// decodes, or that and metrics) and a sequence of calls, which the queue and prioModel both
// receive, on synctest's fake clock. Everything either answers must match, every Get's item
// and priority, at the same fake instant: see duel.
func FuzzPriorityQueue(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			in := &input{data: data}
			d := newPriorityDuel[int](t, in)
			for calls := 0; calls < maxCalls && !in.done(); calls++ {
				priorityCall(d, in)
			}
			d.finish(keys)
		})
	})
}

// priorityCall decodes one call from in and makes it on both sides of d: one of client-go's,
// one that only a priority queue has, or an extension.
func priorityCall(d *duel[int], in *input) {
	const clientGo, priorityOnly = 12, 2
	switch c := in.pick(clientGo + priorityOnly + extensionCalls); {
	case c < clientGo:
		clientGoCall(d, in, c)
	case c == clientGo:
		d.addWithOpts(decodeAddOpts(in), batchOf(in))
	case c == clientGo+1:
		d.getWithPriority(decodeWait(in))
	default:
		extensionCall(d, in, c-clientGo-priorityOnly)
	}
}

// decodeAddOpts reads the options of an AddWithOpts from in: delays of whole milliseconds
// (see offBeat), and priorities from the extremes of int.
func decodeAddOpts(in *input) workqueue.AddOpts {
	o := workqueue.AddOpts{After: decodeDelay(in), RateLimited: in.pick(3) == 0}
	if p := choose(in, 0, -1, 0, 1, 2, math.MaxInt, math.MinInt); in.pick(4) != 0 {
		o.Priority = &p
	}
	return o
}
