// Command example runs a small controller on actorqueue: workers reconcile keys from a
// rate-limiting queue, failures are retried with exponential backoff, and shutdown drains the
// work in flight. Run it with go run ./example.
package main

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/actorqueue/workqueue"
)

func main() {
	queue := workqueue.NewTypedRateLimitingQueue(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](10*time.Millisecond, time.Second))

	var mu sync.Mutex
	attempts := map[string]int{}
	reconcile := func(key string) error {
		mu.Lock()
		defer mu.Unlock()
		attempts[key]++
		if rand.IntN(3) == 0 { // one attempt in three fails
			return fmt.Errorf("transient failure")
		}
		return nil
	}

	var workers sync.WaitGroup
	for id := range 4 {
		workers.Go(func() {
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				if err := reconcile(key); err != nil {
					fmt.Printf("worker %d: %s: %v, retry %d\n", id, key, err, queue.NumRequeues(key)+1)
					queue.AddRateLimited(key)
				} else {
					fmt.Printf("worker %d: %s reconciled\n", id, key)
					queue.Forget(key)
				}
				queue.Done(key)
			}
		})
	}

	for i := range 10 {
		queue.Add(fmt.Sprintf("default/object-%d", i))
	}
	time.Sleep(time.Second) // let the retries play out
	queue.ShutDownWithDrain()
	workers.Wait()

	total := 0
	for _, n := range attempts {
		total += n
	}
	fmt.Printf("%d keys, %d attempts, queue length after shutdown %d\n", len(attempts), total, queue.Len())
}
