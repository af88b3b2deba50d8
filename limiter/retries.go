package limiter

import "github.com/actorqueue/workqueue/metrics"

// Retries is what a queue counts of the rate-limited requeues through its limiter, and when it
// gives up on an item: the MaxRetries, GiveUp and retries metrics of the queue configs. The
// queue keeps the counts; see the root package's documentation, "Retries". Its zero value
// counts nothing and gives up on nothing.
type Retries[T comparable] struct {
	// Counter counts each AddRateLimited before shutdown: client-go's retries metric.
	Counter metrics.CounterMetric
	// Max is the most rate-limited requeues of an item since its last Forget; the next one
	// gives up on it. Zero means no maximum.
	Max int
	// GiveUp hears of each item given up on, with its attempts (Max+1), in the goroutine of
	// the call that gave up; GivenUp counts them. Either may be nil.
	GiveUp  func(item T, attempts int)
	GivenUp metrics.CounterMetric
}

// Abandon gives up on items, each after attempts: forget makes the rate limiter forget it, the
// given-up counter counts it, and the give-up function hears of it, in the caller's goroutine.
// If the function panics, the items after it are still given up, and the first panic is
// raised once all are.
func (r Retries[T]) Abandon(forget func(T), attempts int, items ...T) {
	var fault any
	for _, item := range items {
		forget(item)
		if r.GivenUp != nil {
			r.GivenUp.Inc()
		}
		if r.GiveUp != nil {
			func() {
				defer func() {
					if p := recover(); p != nil && fault == nil {
						fault = p
					}
				}()
				r.GiveUp(item, attempts)
			}()
		}
	}
	if fault != nil {
		panic(fault)
	}
}
