package workqueue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/limiter"
)

func ExampleNewTypedItemExponentialFailureRateLimiterWithOptions() {
	// Remember an item for a minute after its last failure, and two items at most. A queue
	// asks its limiter at its clock's time; here the instants are given.
	l := workqueue.NewTypedItemExponentialFailureRateLimiterWithOptions[string](
		time.Second, 10*time.Second, limiter.ForgetAfter(time.Minute), limiter.MaxTracked(2))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	fmt.Println(l.WhenAt("a", start), l.WhenAt("a", start), l.WhenAt("b", start))
	// Full: c pushes out a, which failed least recently.
	fmt.Println(l.WhenAt("c", start), l.NumRequeues("a"), l.Tracked())
	// Two minutes later, b and c have not failed for more than a minute.
	fmt.Println(l.WhenAt("d", start.Add(2*time.Minute)), l.NumRequeues("b"), l.Tracked())
	// Output:
	// 1s 2s 1s
	// 1s 0 2
	// 1s 0 1
}

// quarters is a random source whose draws, through rand.New, are 0, 1/4, 1/2, 3/4, 0, ...
type quarters struct{ n uint64 }

func (q *quarters) Uint64() uint64 {
	q.n++
	return (q.n - 1) % 4 << 51
}

func ExampleNewTypedJitteredExponentialFailureRateLimiter() {
	// Waits shortened by up to half, so that items failing together are retried apart. The
	// source is only there to make the output predictable: leave it out in a controller.
	l := workqueue.NewTypedJitteredExponentialFailureRateLimiter[string](
		time.Second, time.Minute, 0.5, limiter.RandomSource(&quarters{}))
	var together []time.Duration
	for _, item := range []string{"a", "b", "c", "d"} {
		together = append(together, l.When(item))
	}
	fmt.Println(together)
	fmt.Println(l.When("a"), l.NumRequeues("a"))
	// Output:
	// [1s 875ms 750ms 625ms]
	// 2s 2
}

// TestBoundedLimiterGoesByTheQueueClock checks that a queue asks its limiter at its own
// clock's time, so that the default expiry forgets an abandoned item on that clock, and that
// client-go's constructors never forget.
func TestBoundedLimiterGoesByTheQueueClock(t *testing.T) {
	tests := []struct {
		name          string
		limiter       workqueue.TypedRateLimiter[string]
		wantAbandoned int
	}{
		{"exponential with options", workqueue.NewTypedItemExponentialFailureRateLimiterWithOptions[string](time.Second, time.Minute), 0},
		{"fast-slow with options", workqueue.NewTypedItemFastSlowRateLimiterWithOptions[string](time.Second, time.Minute, 1), 0},
		{"jittered", workqueue.NewTypedJitteredExponentialFailureRateLimiter[string](time.Second, time.Minute, 1), 0},
		{"client-go's exponential", workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute), 2},
		{"client-go's fast-slow", workqueue.NewTypedItemFastSlowRateLimiter[string](time.Second, time.Minute, 1), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			q := workqueue.NewTypedRateLimitingQueueWithConfig(tt.limiter, workqueue.TypedRateLimitingQueueConfig[string]{Clock: clock})
			defer q.ShutDown()
			q.AddRateLimited("abandoned")
			q.AddRateLimited("abandoned")
			for range 3 { // as late as a retry can fail again and keep its count: an hour after its wait
				clock.Step(time.Hour + time.Minute)
				q.AddRateLimited("retried")
			}
			if got := q.NumRequeues("retried"); got != 3 {
				t.Errorf("NumRequeues(retried) = %d, want 3", got)
			}
			if got := q.NumRequeues("abandoned"); got != tt.wantAbandoned {
				t.Errorf("NumRequeues(abandoned) = %d after 3h on the queue's clock, want %d", got, tt.wantAbandoned)
			}
		})
	}
}
