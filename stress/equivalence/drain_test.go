package equivalence

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// drainReturn runs workers that loop from Get to Done, spending item+1 seconds on item, on a
// plain queue of client-go (lib 0) or actorqueue (lib 1); starts ShutDownWithDrain while they
// work, with items still queued; and reports when it returned and how many items had been done
// by then.
func drainReturn(t *testing.T, lib, workers, items int) (returned time.Duration, done int) {
	var q clientgo.TypedInterface[int] = clientgo.NewTyped[int]()
	if lib == 1 {
		q = actorqueue.NewTyped[int]()
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				time.Sleep(time.Duration(item+1) * time.Second)
				mu.Lock()
				done++
				mu.Unlock()
				q.Done(item)
			}
		})
	}
	for item := range items {
		q.Add(item)
	}
	start := time.Now()
	synctest.Wait() // every worker holds an item
	q.ShutDownWithDrain()
	returned = time.Since(start)
	mu.Lock()
	done2 := done
	mu.Unlock()
	wg.Wait()
	return returned, done2
}

// TestDrainWaitsForTheItemsWorkersTakeNext: a worker that calls Get right after Done takes its
// next item before client-go's drain looks again, so that drain returns once the queue is
// empty and every item done. actorqueue's does the same, though the owner hears of the take
// after the Done. On one processor, as here, a worker always goes from Done to its next Get
// before the drain (or the owner) runs; on two, that is a race in both libraries.
func TestDrainWaitsForTheItemsWorkersTakeNext(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			var got [2]string
			for lib := range 2 {
				synctest.Test(t, func(t *testing.T) {
					returned, done := drainReturn(t, lib, workers, 6)
					got[lib] = fmt.Sprintf("returned after %v with %d items done", returned, done)
				})
			}
			if got[0] != got[1] {
				t.Errorf("client-go: %s\nactorqueue: %s", got[0], got[1])
			}
			t.Log(got[1])
		})
	}
}
