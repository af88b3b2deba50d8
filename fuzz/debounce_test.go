package fuzz

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
)

// FuzzDebounce is the differential target of the Debounce option and of Superseded on FIFO
// queues: the input chooses a kind of queue, a debounce window and maximum wait, a number of
// groups and a limit per group, and for a rate-limiting queue a limiter and a maximum of
// retries; then a sequence of client-go's calls and Superseded, which the queue and groupModel
// with the same window both receive on synctest's fake clock. Every answer, every Get's item,
// Superseded and every give-up must match: see duel.
func FuzzDebounce(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			in := &input{data: data}
			d, g, s := newGroupDuelWith(t, in, decodeDebounce(in))
			for calls := 0; calls < maxCalls && !in.done(); calls++ {
				switch c := in.pick(callsOf(d.level) + 1); {
				case c == callsOf(d.level):
					s.superseded(d, choose(in, keys...))
				case c == 9:
					g.addRateLimited(d, choose(in, keys...))
				default:
					clientGoCall(d, in, c)
				}
			}
			d.finish(keys)
		})
	})
}

// FuzzPriorityDebounce is FuzzDebounce for the priority queue, against prioModel (with fairRef
// for groups): the plain adds (Add, AddWithOpts with neither After nor RateLimited) wait out
// the window, AddAfter and the rate-limited adds keep their timing, and Superseded, every Get's
// item and priority, and every give-up must match.
func FuzzPriorityDebounce(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			in := &input{data: data}
			d, g := newPriorityGroupDuelWith(t, in, decodeDebounce(in))
			s := &supersededDuel{sides: [2]workqueue.TypedSuperseder[int]{
				d.real.(foreignPriority[int]).TypedPriorityInterface.(workqueue.TypedSuperseder[int]),
				d.model.(*prioModel[int]),
			}}
			for calls := 0; calls < maxCalls && !in.done(); calls++ {
				const clientGo = 12
				switch c := in.pick(clientGo + 3); {
				case c == 9:
					g.addRateLimited(d, choose(in, keys...))
				case c < clientGo:
					clientGoCall(d, in, c)
				case c == clientGo:
					g.addWithOpts(d, decodeAddOpts(in), batchOf(in))
				case c == clientGo+1:
					d.getWithPriority(decodeWait(in))
				default:
					s.superseded(d, choose(in, keys...))
				}
			}
			d.finish(keys)
		})
	})
}

// decodeDebounce reads a window of whole milliseconds (see offBeat) and a maximum wait.
func decodeDebounce(in *input) workqueue.Debounce {
	window := choose(in, time.Millisecond, 2*time.Millisecond, 5*time.Millisecond, 10*time.Millisecond)
	return workqueue.Debounce{Window: window, MaxWait: time.Duration(choose(in, 0, 1, 2, 3, 5)) * window}
}

// supersededDuel calls Superseded on both sides of a duel: the queue's, which the duel's
// queue hides behind a wrapper, and the model's.
type supersededDuel struct {
	sides [2]workqueue.TypedSuperseder[int]
}

func (s *supersededDuel) superseded(d *duel[int], item int) {
	d.call(fmt.Sprintf("Superseded(%d)", item), "Superseded", func(q workqueue.TypedInterface[int]) string {
		side := s.sides[1]
		if q == d.real {
			side = s.sides[0]
		}
		return fmt.Sprint(side.Superseded(item))
	})
}
