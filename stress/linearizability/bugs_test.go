package linearizability

import (
	"os"
	"sync"
	"testing"

	actorqueue "github.com/actorqueue/workqueue"
)

// The two tests below reproduce the two linearizability violations the suite found in
// actorqueue (steer keeps them out of the default run). Each races a shutdown against other
// calls until the race goes the wrong way: the first within a few tries under -race, the second
// in about one run out of three (of 100,000 tries), more often under -race.
// They fail today; ACTORQUEUE_SHOW_DIVERGENCES=1 runs them.

// tries bounds the attempts of each test.
const tries = 100_000

// TestBugShuttingDownLagsBehindDroppedAdd: an Add returns, ShuttingDown() then says false, so
// the Add came before the shutdown and its item must still be handed out; yet the queue
// dropped it. The ShutDown command was already in the mailbox ahead of the Add, which the
// owner then ignores, but the flag ShuttingDown reads is only set when the owner gets to the
// ShutDown.
func TestBugShuttingDownLagsBehindDroppedAdd(t *testing.T) {
	skipUnlessShown(t)
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
// nothing can be added, so Len must be 0; it can be more, counting items other Gets were
// taking at the moment of the shutdown (reserved for them, not yet acknowledged to the owner).
func TestBugLenCountsItemAfterGetSawEmpty(t *testing.T) {
	skipUnlessShown(t)
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

func skipUnlessShown(t *testing.T) {
	if os.Getenv(showVariable) == "" {
		t.Skipf("a known violation, kept out of CI until it is fixed; %s=1 runs it", showVariable)
	}
}
