package linearizability

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anishathalye/porcupine"

	actorqueue "github.com/actorqueue/workqueue"
)

// The shape of a history.
const (
	clients          = 4  // goroutines calling the queue at once
	minCallsOfClient = 6  // calls each client makes, at least
	maxCallsOfClient = 12 // and at most
)

// call is one operation a client will make. A Done is of an item the client holds, chosen by
// pick; with none held, it is of item, which then may not be in processing, or be in
// processing by another client.
type call struct {
	in   input
	pick int
}

// weights says how often clients make each operation.
var weights = []struct {
	op     op
	weight int
}{
	{opAdd, 20}, {opAddNow, 5}, {opAddLater, 3}, {opAddRateLimited, 8}, {opForget, 4},
	{opNumRequeues, 6}, {opLen, 8}, {opShuttingDown, 3}, {opGet, 20}, {opDone, 18}, {opShutDown, 1},
}

// program returns the calls of each client of the history numbered seed.
func program(seed uint64) [clients][]call {
	r := rand.New(rand.NewPCG(seed, 0))
	total := 0
	for _, w := range weights {
		total += w.weight
	}
	var p [clients][]call
	for c := range p {
		p[c] = make([]call, minCallsOfClient+r.IntN(maxCallsOfClient-minCallsOfClient+1))
		for i := range p[c] {
			n := r.IntN(total)
			for _, w := range weights {
				if n < w.weight {
					p[c][i].in.op = w.op
					break
				}
				n -= w.weight
			}
			p[c][i].in.item = items[r.IntN(len(items))]
			p[c][i].pick = r.IntN(len(items))
		}
	}
	return p
}

// record runs the program of history seed on a new rate-limiting queue, in a synctest bubble,
// and returns every call with its call and return times on one counter. Once every client has
// finished or waits in Get, the test shuts the queue down (a call of its own, by client
// number clients), which lets the waiting Gets return.
func record(t *testing.T, seed uint64) []porcupine.Operation {
	p := program(seed)
	var history [clients + 1][]porcupine.Operation
	synctest.Test(t, func(*testing.T) {
		q := actorqueue.NewTypedRateLimitingQueue(actorqueue.NewTypedItemExponentialFailureRateLimiter[byte](0, 0))
		var clock atomic.Int64
		var wg sync.WaitGroup
		for c, calls := range p {
			wg.Go(func() {
				var held []byte
				for _, cl := range calls {
					in := cl.in
					if in.op == opDone && len(held) > 0 {
						i := cl.pick % len(held)
						in.item = held[i]
						held = slices.Delete(held, i, i+1)
					}
					op := invoke(q, &clock, c, in)
					if in.op == opGet && !op.Output.(output).shutdown {
						held = append(held, op.Output.(output).item)
					}
					history[c] = append(history[c], op)
				}
			})
		}
		synctest.Wait()
		history[clients] = append(history[clients], invoke(q, &clock, clients, input{op: opShutDown}))
		wg.Wait()
	})
	return slices.Concat(history[:]...)
}

// invoke makes one call on q as client number client, timed on clock.
func invoke(q actorqueue.TypedRateLimitingInterface[byte], clock *atomic.Int64, client int, in input) porcupine.Operation {
	var out output
	called := clock.Add(1)
	switch in.op {
	case opAdd:
		q.Add(in.item)
	case opAddNow:
		q.AddAfter(in.item, 0)
	case opAddLater:
		q.AddAfter(in.item, time.Hour)
	case opAddRateLimited:
		q.AddRateLimited(in.item)
	case opForget:
		q.Forget(in.item)
	case opNumRequeues:
		out.n = q.NumRequeues(in.item)
	case opLen:
		out.n = q.Len()
	case opShuttingDown:
		out.flag = q.ShuttingDown()
	case opGet:
		out.item, out.shutdown = q.Get()
	case opDone:
		q.Done(in.item)
	case opShutDown:
		q.ShutDown()
	}
	returned := clock.Add(1)
	return porcupine.Operation{ClientId: client, Input: in, Call: called, Output: out, Return: returned}
}
