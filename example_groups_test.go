package workqueue_test

import (
	"fmt"
	"strings"

	"github.com/actorqueue/workqueue"
)

func ExampleTypedQueueConfig_group() {
	// Keys are "namespace/name"; each namespace takes its turn.
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{
		Group: func(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns },
	})
	defer q.ShutDown()
	for _, key := range []string{"busy/a", "busy/b", "busy/c", "quiet/x", "other/y"} {
		q.Add(key)
	}
	for q.Len() > 0 {
		key, _ := q.Get()
		fmt.Print(key, " ")
		q.Done(key)
	}
	fmt.Println()
	// Output:
	// busy/a quiet/x other/y busy/b busy/c
}

func ExampleTypedQueueConfig_maxPerGroup() {
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{
		Group:       func(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns },
		MaxPerGroup: 1,
	})
	defer q.ShutDown()
	q.Add("busy/a")
	q.Add("busy/b")
	q.Add("quiet/x")
	first, _ := q.Get()
	second, _ := q.Get() // busy has one item in processing: its next one waits
	fmt.Println(first, second, q.Len())
	q.Done(first)
	third, _ := q.Get()
	fmt.Println(third)
	// Output:
	// busy/a quiet/x 1
	// busy/b
}

func ExampleTypedRateLimitingQueueConfig_maxRetries() {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, 0),
		workqueue.TypedRateLimitingQueueConfig[string]{
			MaxRetries: 2,
			GiveUp: func(key string, attempts int) {
				fmt.Printf("giving up on %s after %d attempts\n", key, attempts)
			},
		})
	defer q.ShutDown()
	q.Add("flaky")
	for q.Len() > 0 {
		key, _ := q.Get()
		fmt.Println("processing", key, "failed")
		q.AddRateLimited(key) // requeued twice, then given up on
		q.Done(key)
	}
	// Output:
	// processing flaky failed
	// processing flaky failed
	// processing flaky failed
	// giving up on flaky after 3 attempts
}

func ExampleTypedPriorityQueueConfig_group() {
	q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{
		Group: func(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns },
	})
	defer q.ShutDown()
	q.AddBatch("busy/a", "busy/b", "busy/c", "quiet/x")
	high := 1
	q.AddWithOpts(workqueue.AddOpts{Priority: &high}, "busy/urgent")
	for q.Len() > 0 {
		key, _ := q.Get()
		fmt.Print(key, " ")
		q.Done(key)
	}
	fmt.Println()
	// Output:
	// busy/urgent busy/a quiet/x busy/b busy/c
}
