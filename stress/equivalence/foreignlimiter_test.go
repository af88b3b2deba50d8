package equivalence

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// limited is what these tests need of a rate-limiting queue of either library.
type limited = clientgo.TypedRateLimitingInterface[string]

// hookLimiter is a rate limiter of the test's own: its When runs hook, then answers wait.
// NumRequeues and Forget do nothing of note.
type hookLimiter struct {
	hook func(item string)
	wait time.Duration
}

func (l *hookLimiter) When(item string) time.Duration {
	l.hook(item)
	return l.wait
}
func (l *hookLimiter) Forget(string)          {}
func (l *hookLimiter) NumRequeues(string) int { return 0 }

// rateLimitingOn builds a rate-limiting queue of client-go (lib 0) or actorqueue (lib 1) around
// l, with metrics recorded in calls.
func rateLimitingOn(lib int, l clientgo.TypedRateLimiter[string], calls *metricCalls) limited {
	if lib == 0 {
		return clientgo.NewTypedRateLimitingQueueWithConfig(l,
			clientgo.TypedRateLimitingQueueConfig[string]{Name: "q", MetricsProvider: clientGoMetrics{calls}})
	}
	return actorqueue.NewTypedRateLimitingQueueWithConfig[string](l,
		actorqueue.TypedRateLimitingQueueConfig[string]{Name: "q", MetricsProvider: actorQueueMetrics{calls}})
}

// itemBased returns the default item-based limiter of client-go (lib 0) or actorqueue (lib 1).
func itemBased(lib int) clientgo.TypedRateLimiter[string] {
	if lib == 0 {
		return clientgo.DefaultTypedItemBasedRateLimiter[string]()
	}
	return actorqueue.DefaultTypedItemBasedRateLimiter[string]()
}

// TestForeignLimiterCallsBackIntoTheQueue: client-go asks a rate limiter in the caller's
// goroutine, so a limiter of the user's may look at the queue it serves. Both libraries answer
// its Len, and the item is added after the wait.
func TestForeignLimiterCallsBackIntoTheQueue(t *testing.T) {
	var results [2]string
	for i := range 2 {
		synctest.Test(t, func(t *testing.T) {
			var q limited
			l := &hookLimiter{wait: time.Second}
			var seen int
			l.hook = func(string) { seen = q.Len() }
			q = rateLimitingOn(i, l, newMetricCalls())
			defer q.ShutDown()
			q.Add("x")
			q.AddRateLimited("y")
			time.Sleep(time.Second)
			synctest.Wait()
			results[i] = fmt.Sprintf("When saw Len %d; Len %d a second later", seen, q.Len())
		})
	}
	if results[0] != results[1] {
		t.Errorf("client-go: %s; actorqueue: %s", results[0], results[1])
	}
}

// TestForeignLimiterThatBlocksStopsOnlyItsCaller: while a limiter of the user's blocks in When,
// the AddRateLimited that asked it waits, and every other call on the queue goes on.
func TestForeignLimiterThatBlocksStopsOnlyItsCaller(t *testing.T) {
	var results [2]string
	for i := range 2 {
		synctest.Test(t, func(t *testing.T) {
			release := make(chan struct{})
			l := &hookLimiter{hook: func(string) { <-release }}
			q := rateLimitingOn(i, l, newMetricCalls())
			retried := make(chan struct{})
			go func() {
				q.AddRateLimited("b")
				close(retried)
			}()
			synctest.Wait() // the limiter blocks
			q.Add("a")
			item, _ := q.Get()
			results[i] = fmt.Sprintf("while When blocks: Len %d after Get %s", q.Len(), item)
			q.Done(item)
			close(release)
			<-retried
			results[i] += fmt.Sprintf("; then Len %d", q.Len())
			q.ShutDown()
		})
	}
	if results[0] != results[1] {
		t.Errorf("client-go: %s; actorqueue: %s", results[0], results[1])
	}
}

// TestRetryCountedAfterTheLimiterAnswers: a retry is counted only once the limiter has
// answered, so a limiter that panics counts no retry, for a limiter of the user's and for one
// of each library's own. A retries counter that panics differs, as every metric does (see
// TestPanickingMetricsLoseNoItem): client-go counts before it adds, and leaves the item out;
// actorqueue counts once the item is on its way, which it then is. Each scenario says which
// of the two it checks: the same outcome as client-go's, or client-go's with the item added.
func TestRetryCountedAfterTheLimiterAnswers(t *testing.T) {
	scenarios := map[string]struct {
		limiter func(lib int) clientgo.TypedRateLimiter[string]
		fail    string
	}{
		"the user's limiter panics": {
			limiter: func(int) clientgo.TypedRateLimiter[string] {
				return &hookLimiter{hook: func(string) { panic("limiter failed") }}
			},
		},
		"the retries counter panics": {
			limiter: itemBased,
			fail:    "retries Inc",
		},
		"the retries counter panics, the user's limiter": {
			limiter: func(int) clientgo.TypedRateLimiter[string] { return &hookLimiter{hook: func(string) {}} },
			fail:    "retries Inc",
		},
		"nothing panics": {
			limiter: itemBased,
		},
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			var results [2]string
			for i := range 2 {
				synctest.Test(t, func(t *testing.T) {
					calls := newMetricCalls()
					calls.fail = sc.fail
					q := rateLimitingOn(i, sc.limiter(i), calls)
					outcome := panicked(func() { q.AddRateLimited("a") })
					time.Sleep(10 * time.Millisecond) // past the limiter's 5 ms, before client-go's first tick
					synctest.Wait()
					results[i] = fmt.Sprintf("%s; Len %d; NumRequeues %d\n%s", outcome, q.Len(), q.NumRequeues("a"), calls)
					q.ShutDown()
				})
			}
			want := results[0]
			if sc.fail != "" { // the item is added, and its add recorded, before the panic
				want = strings.Replace(want, "Len 0", "Len 1", 1)
				want = strings.Replace(want, "\tretries: Inc", "\tadds: Inc\n\tdepth: Inc\n\tretries: Inc", 1)
			}
			if results[1] != want {
				t.Errorf("client-go:\n%s\nwant:\n%s\nactorqueue:\n%s", results[0], want, results[1])
			}
		})
	}
}
