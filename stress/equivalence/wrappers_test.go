package equivalence

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	actorqueue "github.com/actorqueue/workqueue"
)

// library builds the queues of one library on a fake clock, seen through client-go's
// interfaces. around builds a delaying queue around inner.
type library struct {
	plain        func(c *testingclock.FakeClock) clientgo.TypedInterface[string]
	delaying     func(c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string]
	rateLimiting func(c *testingclock.FakeClock) clientgo.TypedRateLimitingInterface[string]
	around       func(inner clientgo.TypedInterface[string], c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string]
}

// libraries are client-go's, then actorqueue's.
var libraries = [2]library{
	{
		plain: func(c *testingclock.FakeClock) clientgo.TypedInterface[string] {
			return clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{Clock: c})
		},
		delaying: func(c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string] {
			return clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{Clock: c})
		},
		rateLimiting: func(c *testingclock.FakeClock) clientgo.TypedRateLimitingInterface[string] {
			return clientgo.NewTypedRateLimitingQueueWithConfig(clientgo.DefaultTypedControllerRateLimiter[string](),
				clientgo.TypedRateLimitingQueueConfig[string]{Clock: c})
		},
		around: func(inner clientgo.TypedInterface[string], c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string] {
			return clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{Clock: c, Queue: inner})
		},
	},
	{
		plain: func(c *testingclock.FakeClock) clientgo.TypedInterface[string] {
			return actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{Clock: c})
		},
		delaying: func(c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string] {
			return actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{Clock: c})
		},
		rateLimiting: func(c *testingclock.FakeClock) clientgo.TypedRateLimitingInterface[string] {
			return actorqueue.NewTypedRateLimitingQueueWithConfig(actorqueue.DefaultTypedControllerRateLimiter[string](),
				actorqueue.TypedRateLimitingQueueConfig[string]{Clock: c})
		},
		around: func(inner clientgo.TypedInterface[string], c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string] {
			return actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{Clock: c, Queue: inner})
		},
	},
}

// playBoth plays scenario on each library, inside a bubble of its own with a fake clock, and
// fails t at the first note where actorqueue's differs from client-go's. A scenario notes what
// it observes through note, which first waits for the bubble to settle.
func playBoth(t *testing.T, scenario func(l library, c *testingclock.FakeClock, note func(format string, args ...any))) {
	t.Helper()
	var notes [2][]string
	for i, l := range libraries {
		synctest.Test(t, func(*testing.T) {
			c := testingclock.NewFakeClock(time.Unix(0, 0))
			scenario(l, c, func(format string, args ...any) {
				notes[i] = append(notes[i], fmt.Sprintf(format, args...))
			})
		})
	}
	compareStates(t, notes[0], notes[1])
}

// stepClock steps c by d and waits for the queues to settle.
func stepClock(c *testingclock.FakeClock, d time.Duration) {
	c.Step(d)
	synctest.Wait()
}

// TestTwoDelayingQueuesAroundOneQueue: each delaying queue holds its own delays, so an item
// delayed through both is added once by each, at each one's instant; the later delay is not
// merged into the earlier one.
func TestTwoDelayingQueuesAroundOneQueue(t *testing.T) {
	playBoth(t, func(l library, c *testingclock.FakeClock, note func(string, ...any)) {
		inner := l.plain(c)
		d1, d2 := l.around(inner, c), l.around(inner, c)
		d1.AddAfter("x", 2*time.Second)
		d2.AddAfter("x", time.Second)
		synctest.Wait()
		stepClock(c, time.Second)
		note("at 1s: %d waiting", inner.Len())
		item, _ := inner.Get()
		inner.Done(item)
		stepClock(c, time.Second)
		note("at 2s: %d waiting", inner.Len())
		d1.ShutDown()
		d2.ShutDown()
	})
}

// TestDelayingQueueAroundADelayingQueue: a delaying queue built around a delaying or
// rate-limiting queue has delays of its own, apart from the inner queue's.
func TestDelayingQueueAroundADelayingQueue(t *testing.T) {
	inners := map[string]func(l library, c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string]{
		"delaying": func(l library, c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string] {
			return l.delaying(c)
		},
		"rate-limiting": func(l library, c *testingclock.FakeClock) clientgo.TypedDelayingInterface[string] {
			return l.rateLimiting(c)
		},
	}
	for name, newInner := range inners {
		t.Run(name, func(t *testing.T) {
			playBoth(t, func(l library, c *testingclock.FakeClock, note func(string, ...any)) {
				inner := newInner(l, c)
				outer := l.around(inner, c)
				outer.AddAfter("x", 2*time.Second)
				inner.AddAfter("x", time.Second)
				synctest.Wait()
				stepClock(c, time.Second)
				note("at 1s: %d waiting", outer.Len())
				item, _ := outer.Get()
				outer.Done(item)
				stepClock(c, time.Second)
				note("at 2s: %d waiting", outer.Len())
				outer.ShutDown()
				inner.ShutDown()
			})
		})
	}
}
