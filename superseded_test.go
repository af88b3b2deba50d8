package workqueue_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue"
)

// TestSuperseded: an item is superseded once added again after its getter took it, for as long
// as it is in processing; an add while it waited to be handed out is merged, and does not
// supersede it; a delayed add supersedes it once it falls due.
func TestSuperseded(t *testing.T) {
	queues := map[string]func() workqueue.TypedRateLimitingInterface[string]{
		"fifo": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		},
		"metrics": func() workqueue.TypedRateLimitingInterface[string] { // callers wait for every command
			return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
				workqueue.TypedRateLimitingQueueConfig[string]{Name: "q", MetricsProvider: &provider{}})
		},
		"priority": func() workqueue.TypedRateLimitingInterface[string] {
			return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{})
		},
	}
	for name, build := range queues {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := build()
				defer q.ShutDown()
				s := q.(workqueue.TypedSuperseder[string])
				q.Add("a")
				q.Add("a")
				assert.False(t, s.Superseded("a"), "an item waiting is not superseded")
				item, _ := q.Get()
				assert.False(t, s.Superseded(item), "merged adds before the Get superseded it")
				q.AddAfter(item, time.Second)
				assert.False(t, s.Superseded(item), "a delayed add superseded it before falling due")
				time.Sleep(time.Second)
				synctest.Wait()
				assert.True(t, s.Superseded(item), "a delayed add that fell due did not supersede it")
				q.Done(item)
				assert.False(t, s.Superseded(item), "an item done is not superseded")

				item, _ = q.Get()
				for range 3 { // asked in a loop: answered from the published view, or by the owner
					assert.False(t, s.Superseded(item))
				}
				q.Add(item)
				assert.True(t, s.Superseded(item), "an Add that returned did not supersede the item")
				assert.True(t, s.Superseded(item))
				q.Done(item)
				assert.False(t, s.Superseded(item))
				assert.False(t, s.Superseded("never added"))
			})
		})
	}
}

// TestSupersededRacesNoAdd: a holder polling Superseded while other goroutines add other items
// and a last add of its own item comes: every answer after that add returned is true.
func TestSupersededRacesNoAdd(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[int]())
	defer q.ShutDown()
	s := q.(workqueue.TypedSuperseder[int])
	for round := range 50 {
		q.Add(-1)
		item, _ := q.Get()
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
					q.Add(round*1000 + i%50)
				}
			}
		}()
		for range 100 {
			if s.Superseded(item) {
				t.Fatalf("round %d: superseded before any add of it", round)
			}
		}
		q.Add(item)
		for range 100 {
			if !s.Superseded(item) {
				t.Fatalf("round %d: an Add that returned did not supersede the item", round)
			}
		}
		close(stop)
		<-done
		q.Done(item)
		for q.Len() > 0 {
			got, _ := q.Get()
			q.Done(got)
		}
	}
}
