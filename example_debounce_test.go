package workqueue_test

import (
	"fmt"
	"time"

	"github.com/actorqueue/workqueue"
)

// A controller whose objects change in bursts reconciles each burst once, after it: the key is
// handed out once it has been quiet for the window (here 50ms), or a second after its first
// change at the latest.
func ExampleDebounce() {
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{
			Debounce: workqueue.Debounce{Window: 50 * time.Millisecond, MaxWait: time.Second},
		})
	defer queue.ShutDown()

	for range 10 { // the informer's handler: the Deployment changed ten times
		queue.Add("default/web")
	}
	key, _ := queue.Get() // 50ms after the last change
	fmt.Println("reconcile", key)
	queue.Forget(key)
	queue.Done(key)
	s := queue.(workqueue.TypedExtensions[string]).Snapshot()
	fmt.Printf("then %d waiting, %d waiting out a window\n", s.Queued, s.Debouncing)
	// Output:
	// reconcile default/web
	// then 0 waiting, 0 waiting out a window
}

// A long reconcile checks between its steps whether its key was added again since it took it:
// the object changed meanwhile, so the rest of this reconcile works on a stale read, and the
// queue hands the key out again once it is done.
func ExampleTypedSuperseder() {
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	defer queue.ShutDown()
	superseded := queue.(workqueue.TypedSuperseder[string])

	queue.Add("default/web")
	key, _ := queue.Get()
	for step := 1; step <= 3; step++ {
		if superseded.Superseded(key) {
			fmt.Println("superseded before step", step, "of", key+": stop")
			break
		}
		fmt.Println("step", step, "of", key)
		if step == 2 {
			queue.Add("default/web") // the informer's handler: the Deployment changed
		}
	}
	queue.Done(key)
	key, _ = queue.Get()
	fmt.Println("reconcile", key, "again")
	queue.Done(key)
	// Output:
	// step 1 of default/web
	// step 2 of default/web
	// superseded before step 3 of default/web: stop
	// reconcile default/web again
}
