package linearizability

import (
	"sync"
	"testing"

	actorqueue "github.com/actorqueue/workqueue"
)

// The two tests below reproduce two of the linearizability violations the suite found in
// actorqueue, fixed since: each races a shutdown against other calls, many times. Before
// the fixes, the first failed within a few tries under -race; the second in about one run out
// of three of 100,000 tries, so with the tries below it is a weak guard, and TestLinearizable,
// which checks every history whole, the main one.

// tries bounds the attempts of each test.
const tries = 3_000

// TestBugShuttingDownLagsBehindDroppedAdd: an Add returns, ShuttingDown() then says false, so
// the Add came before the shutdown and its item must still be handed out. The queue used to
// drop it: the ShutDown command was already in the mailbox ahead of the Add, but the flag
// ShuttingDown reads was only set when the owner got to the ShutDown. The flag now rises in
// the mailbox's critical section that appends the ShutDown command (actor/mailbox.go), so no
// command enters the mailbox between the two; actor's TestShutdownIsOrderedWithWhatFollowsTheFlag
// covers the other side, a command sent after the flag was seen.
func TestBugShuttingDownLagsBehindDroppedAdd(t *testing.T) {
	for i := range tries {
		q := actorqueue.NewTyped[int]()
		var shut sync.WaitGroup
		shut.Go(q.ShutDown)
		q.Add(1)
		before := !q.ShuttingDown()
		shut.Wait()
		if _, shutdown := q.Get(); before && shutdown {
			t.Fatalf("try %d: Add(1) returned, then ShuttingDown() = false, yet Get() after the shutdown "+
				"= shutdown: the item was dropped", i)
		}
	}
}

// TestBugLenCountsItemAfterGetSawEmpty: once a Get has returned shutdown, nothing waits and
// nothing can be added, so Len must be 0. It used to count items other Gets were taking at the
// moment of the shutdown (reserved for them, their takes not yet known to the owner); a Get
// that finds ready empty now takes every reservation before counting the queue empty.
func TestBugLenCountsItemAfterGetSawEmpty(t *testing.T) {
	const getters = 16
	for i := range tries {
		q := actorqueue.NewTyped[int]()
		var wg sync.WaitGroup
		for g := range getters {
			q.Add(g)
			wg.Go(func() {
				if item, shutdown := q.Get(); !shutdown {
					q.Done(item)
				}
			})
		}
		q.ShutDown()
		_, shutdown := q.Get()
		n := q.Len()
		wg.Wait()
		if shutdown && n != 0 {
			t.Fatalf("try %d: Get() = shutdown, then Len() = %d", i, n)
		}
	}
}
