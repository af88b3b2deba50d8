package sharding

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// BenchmarkQueue measures what the wrapper adds to Add, Get and Done, against the wrapped
// queue alone, with one replica holding every bucket. The replica throughput and take-over
// figures come from cmd/shardbench, which needs seconds of real Lease time per row.
func BenchmarkQueue(b *testing.B) {
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = "default/object-" + strconv.Itoa(i)
	}
	cycle := func(b *testing.B, q workqueue.TypedRateLimitingInterface[string]) {
		for i := 0; b.Loop(); i++ {
			q.Add(keys[i%len(keys)])
			key, _ := q.Get()
			q.Done(key)
		}
	}
	b.Run("inner", func(b *testing.B) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		defer q.ShutDown()
		cycle(b, q)
	})
	b.Run("sharded", func(b *testing.B) {
		s := New(Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(), Namespace: "default", Name: "bench", Identity: "a", Buckets: 16,
			LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond})
		q := Wrap(s, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()), QueueConfig[string]{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Run(ctx)
		}()
		for len(s.Held()) < s.Buckets() {
			time.Sleep(10 * time.Millisecond)
		}
		cycle(b, q)
		b.StopTimer()
		cancel()
		<-done
		q.ShutDown()
	})
}
