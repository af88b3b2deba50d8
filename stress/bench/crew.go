package bench

import (
	"sync"
	"sync/atomic"
)

// crew is a set of worker goroutines on one queue, the consumer side of every workload.
type crew struct {
	q  Queue
	wg sync.WaitGroup
	// finished is closed when the target number of items is complete.
	finished chan struct{}
}

// startCrew starts workers goroutines that Get items from q, run handle on each and call
// Done. handle reports whether the item is complete (a failed one is not); finished closes
// when items items are, never if items is 0. A nil handle completes every item.
func startCrew(q Queue, workers, items int, handle func(key int) (complete bool)) *crew {
	c := &crew{q: q, finished: make(chan struct{})}
	var complete atomic.Int64
	for range workers {
		c.wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				ok := handle == nil || handle(key)
				q.Done(key)
				if ok && complete.Add(1) == int64(items) {
					close(c.finished)
				}
			}
		})
	}
	return c
}

// stop shuts the queue down and waits for the workers to return.
func (c *crew) stop() {
	c.q.ShutDown()
	c.wg.Wait()
}
