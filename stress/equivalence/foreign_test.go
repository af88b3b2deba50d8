package equivalence

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// foreignQueue is a queue of neither library that records the calls a delaying queue makes to
// it. It keeps every item added, even after its shutdown, so that an Add a delaying queue
// should not have made shows in its log and in Len.
type foreignQueue struct {
	mu    sync.Mutex
	calls []string
	items []string
	down  bool
}

func (f *foreignQueue) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

// log returns the calls recorded since the last log.
func (f *foreignQueue) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := strings.Join(f.calls, " ")
	f.calls = nil
	return s
}

func (f *foreignQueue) Add(item string) {
	f.record("Add(" + item + ")")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items = append(f.items, item)
}

func (f *foreignQueue) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items)
}

// Get returns the first item without waiting; shutdown is true when there is none.
func (f *foreignQueue) Get() (item string, shutdown bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.items) == 0 {
		return "", true
	}
	item, f.items = f.items[0], f.items[1:]
	return item, false
}

func (f *foreignQueue) Done(string) {}

func (f *foreignQueue) ShutDown() {
	f.record("ShutDown")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = true
}

func (f *foreignQueue) ShutDownWithDrain() {
	f.record("ShutDownWithDrain")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = true
}

func (f *foreignQueue) ShuttingDown() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down
}

// TestDelayingQueueAroundAForeignQueueShutDownDirectly: once the foreign queue inside a delaying
// queue is shut down directly, not through the delaying queue, no delayed item reaches its Add,
// whether it falls due a second later or after a heartbeat.
func TestDelayingQueueAroundAForeignQueueShutDownDirectly(t *testing.T) {
	playBoth(t, func(l library, c *testingclock.FakeClock, note func(string, ...any)) {
		inner := &foreignQueue{}
		d := l.around(inner, c)
		d.AddAfter("a", time.Second)
		d.AddAfter("b", 0)
		synctest.Wait()
		note("added: %s", inner.log())
		stepClock(c, time.Second)
		note("at 1s: %s; len %d", inner.log(), d.Len())
		d.AddAfter("c", time.Second)
		d.AddAfter("d", time.Minute)
		synctest.Wait()
		inner.ShutDown()
		inner.log()
		stepClock(c, time.Second)
		note("at 2s, after the inner shutdown: %q; len %d", inner.log(), d.Len())
		for range 6 {
			stepClock(c, 10*time.Second)
		}
		note("a minute later: %q; len %d", inner.log(), d.Len())
		d.AddAfter("e", 0)
		d.AddAfter("f", time.Second)
		stepClock(c, time.Second)
		note("AddAfter after the inner shutdown: %q; len %d", inner.log(), d.Len())
		d.ShutDown()
	})
}
