package actor

import (
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue/clock"
	"github.com/actorqueue/workqueue/metrics"
	"github.com/actorqueue/workqueue/queue"
)

// exiter is a metric of every kind that calls runtime.Goexit on the Inc that exit names (1 for
// the first), once.
type exiter struct{ seen, exit int }

func (e *exiter) Inc() {
	if e.seen++; e.seen == e.exit {
		runtime.Goexit()
	}
}
func (e *exiter) Dec()            {}
func (e *exiter) Set(float64)     {}
func (e *exiter) Observe(float64) {}

// exitingAdds is a metrics provider whose adds counter is an exiter.
type exitingAdds struct{ adds *exiter }

func (p exitingAdds) NewDepthMetric(string) metrics.GaugeMetric            { return &exiter{} }
func (p exitingAdds) NewAddsMetric(string) metrics.CounterMetric           { return p.adds }
func (p exitingAdds) NewLatencyMetric(string) metrics.HistogramMetric      { return &exiter{} }
func (p exitingAdds) NewWorkDurationMetric(string) metrics.HistogramMetric { return &exiter{} }
func (p exitingAdds) NewUnfinishedWorkSecondsMetric(string) metrics.SettableGaugeMetric {
	return &exiter{}
}
func (p exitingAdds) NewLongestRunningProcessorSecondsMetric(string) metrics.SettableGaugeMetric {
	return &exiter{}
}
func (p exitingAdds) NewRetriesMetric(string) metrics.CounterMetric { return &exiter{} }

// TestAGoexitMidChainKeepsTheRestOfTheChain: the metric of the second of four commands taken in
// one chain ends the owner's goroutine. That command's caller hears of the Goexit; the two after
// it go back to the front of the mailbox, ahead of a command put meanwhile, and the next turn
// applies them in order.
func TestAGoexitMidChainKeepsTheRestOfTheChain(t *testing.T) {
	q := newQueue(Config[string]{Metrics: metrics.Config{Name: "q", Provider: exitingAdds{adds: &exiter{exit: 2}}}})
	var replies []chan result[string]
	put := func(item string) {
		reply := make(chan result[string], 1)
		replies = append(replies, reply)
		q.mailbox.put(command[string]{op: opAdd, item: item, reply: reply})
	}
	for _, item := range []string{"a", "b", "c", "d"} {
		put(item)
	}
	var a alarm
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		q.turn(&a, &alarm{})
		t.Error("the turn went on after Goexit")
	}()
	<-ended
	assert.Nil(t, (<-replies[0]).fault)
	assert.Equal(t, goexit{}, (<-replies[1]).fault)
	put("e")
	q.turn(&a, &alarm{})
	for i, item := range []string{"c", "d", "e"} {
		select {
		case r := <-replies[2+i]:
			assert.Nil(t, r.fault, item)
		default:
			t.Errorf("%s was not applied", item)
		}
	}
	var order []string
	for len(q.ready) > 0 {
		order = append(order, (<-q.ready).item)
	}
	assert.Equal(t, []string{"a", "c", "d", "e"}, order, "b is not added, as in client-go")
}

// startExiter is a metrics provider whose latency histogram, observed as an item starts its
// processing, calls runtime.Goexit once armed.
type startExiter struct {
	exitingAdds
	armed *atomic.Bool
}

type armedHistogram struct{ armed *atomic.Bool }

func (h armedHistogram) Observe(float64) {
	if h.armed.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
}

func (p startExiter) NewLatencyMetric(string) metrics.HistogramMetric { return armedHistogram{p.armed} }

// TestAGoexitAsATakeStartsIsTheGetters: a getter took x, and another caller's Done is the first
// command to carry the take to the owner. The metrics end the goroutine as x starts: the Done's
// caller goes on and its Done is applied; the getter, confirming its take, hears of the Goexit
// and gives x back, as its Get would have run the metric in client-go.
func TestAGoexitAsATakeStartsIsTheGetters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var armed atomic.Bool
		q := New(Config[string]{Metrics: metrics.Config{Name: "q", Provider: startExiter{exitingAdds{adds: &exiter{}}, &armed}}})
		q.Add("a")
		q.Add("x")
		a, _ := q.Get()
		armed.Store(true)
		h := <-q.ready // the getter of x takes it, and has not yet confirmed
		raise(&q.taken, h.seq)
		done := make(chan struct{})
		go func() {
			defer close(done)
			q.Done(a)
			done <- struct{}{} // reached only if Done returned
		}()
		_, returned := <-done
		assert.True(t, returned, "the Done's caller ended")
		r := q.ask(command[string]{op: opTaken, item: h.item})
		assert.Equal(t, goexit{}, r.fault, "the getter hears of the Goexit")
		q.send(command[string]{op: opGiveBack, item: h.item}) // as Queue.take does
		s := q.Snapshot()
		assert.Equal(t, 0, s.Processing, "a is done and x given back")
		assert.Equal(t, 1, s.Queued)
		q.ShutDown()
	})
}

// doneExiter is a metrics provider whose work-duration histogram, observed on Done, calls
// runtime.Goexit once armed.
type doneExiter struct {
	exitingAdds
	armed *atomic.Bool
}

func (p doneExiter) NewWorkDurationMetric(string) metrics.HistogramMetric {
	return armedHistogram{p.armed}
}

// TestAGoexitAsTheOwnerHandsOverLeavesNoCallerWaiting: commands sent after the owner's last
// turn are applied as it hands the state over. The metrics of the first end the goroutine: its
// caller hears of the Goexit, and the one after it is applied all the same, though the owner
// is gone and nobody sends again.
func TestAGoexitAsTheOwnerHandsOverLeavesNoCallerWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var armed atomic.Bool
		q := newQueue(Config[string]{Metrics: metrics.Config{Name: "q", Provider: doneExiter{exitingAdds{adds: &exiter{}}, &armed}}})
		put := func(c command[string]) chan result[string] { return putAsking(q, c) }
		a, ticks := &alarm{}, &alarm{}
		put(command[string]{op: opAdd, item: "a"})
		q.turn(a, ticks)
		raise(&q.taken, (<-q.ready).seq)
		put(command[string]{op: opTaken, item: "a"})
		put(command[string]{op: opShutDown})
		q.turn(a, ticks)
		require.True(t, q.m.finished())
		done := put(command[string]{op: opDone, item: "a"})
		length := put(command[string]{op: opLen})
		armed.Store(true)
		go q.run(a, ticks, false) // the owner's last steps
		<-q.exited
		assert.Equal(t, goexit{}, (<-done).fault)
		select {
		case r := <-length:
			assert.Equal(t, 0, r.n)
		default:
			t.Error("Len was never answered")
		}
	})
}

// TestACycleDoesNotAllocate: an Add, Get and Done allocate nothing once the queue is warm, with
// metrics or without; the Goexit bookkeeping included (a take remembers the item it starts).
func TestACycleDoesNotAllocate(t *testing.T) {
	for name, config := range map[string]Config[int]{
		"plain":        {},
		"with metrics": {Metrics: metrics.Config{Name: "q", Provider: exitingAdds{adds: &exiter{}}}},
	} {
		if config.Metrics.Name != "" && raceEnabled {
			continue // its calls wait on reply channels from a sync.Pool, which the race detector thins
		}
		q := New(config)
		cycle := func() {
			q.Add(1)
			item, _ := q.Get()
			q.Done(item)
		}
		for range 100 {
			cycle()
		}
		assert.Zero(t, testing.AllocsPerRun(1000, cycle), name)
		q.ShutDown()
	}
}

// countdown is a metric of every kind that calls runtime.Goexit on its next n calls (Set,
// Observe), or panics instead when panics is set.
type countdown struct {
	n      *atomic.Int32
	panics bool
}

func (c countdown) fire() {
	if c.n.Add(-1) >= 0 {
		if c.panics {
			panic("metric failure")
		}
		runtime.Goexit()
	}
}
func (c countdown) Set(float64)     { c.fire() }
func (c countdown) Observe(float64) { c.fire() }

// failing is a metrics provider whose delayed gauge, latency and work duration are countdowns.
type failing struct {
	exitingAdds
	delayed, latency, work countdown
}

func (p failing) NewDelayedMetric(string) metrics.SettableGaugeMetric  { return p.delayed }
func (p failing) NewLatencyMetric(string) metrics.HistogramMetric      { return p.latency }
func (p failing) NewWorkDurationMetric(string) metrics.HistogramMetric { return p.work }
func newFailing(delayed, latency, work *atomic.Int32, panics bool) failing {
	return failing{exitingAdds{adds: &exiter{}}, countdown{delayed, panics}, countdown{latency, panics}, countdown{work, panics}}
}

// TestADrainIsAnsweredOnce: a ShutDownWithDrain whose delayed gauge fails as the delay heap is
// cleared gets the fault once; it does not also wait among the drains, to be answered again.
func TestADrainIsAnsweredOnce(t *testing.T) {
	for _, panics := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			var delayed, none atomic.Int32
			q := New(Config[string]{Delaying: true, Metrics: metrics.Config{Name: "q", Delayed: true,
				Provider: newFailing(&delayed, &none, &none, panics)}})
			q.Add("x")
			x, _ := q.Get()
			q.AddAfter("y", time.Hour, nil)
			delayed.Store(1)
			reply := make(chan result[string], 2)
			q.send(command[string]{op: opShutDown, reply: reply, more: &details[string]{drain: true}})
			synctest.Wait()
			q.Done(x)
			<-q.exited
			assert.Len(t, reply, 1, "panics %v", panics)
		})
	}
}

// TestTwoGoexitsAsTheOwnerHandsOver: the owner ends as it hands the state over, and again as it
// applies the commands put back: it still marks itself as ended, so ShutDown returns.
func TestTwoGoexitsAsTheOwnerHandsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none, work atomic.Int32
		q := newQueue(Config[string]{Metrics: metrics.Config{Name: "q", Provider: newFailing(&none, &none, &work, false)}})
		put := func(c command[string]) chan result[string] { return putAsking(q, c) }
		a, ticks := &alarm{}, &alarm{}
		put(command[string]{op: opAdd, item: "a"})
		put(command[string]{op: opAdd, item: "b"})
		q.turn(a, ticks)
		raise(&q.taken, (<-q.ready).seq)
		raise(&q.taken, (<-q.ready).seq)
		put(command[string]{op: opShutDown})
		q.turn(a, ticks)
		first := put(command[string]{op: opDone, item: "a"})
		second := put(command[string]{op: opDone, item: "b"})
		work.Store(2)
		go q.run(a, ticks, false) // the owner's last steps
		<-q.exited
		assert.Equal(t, goexit{}, (<-first).fault)
		assert.Equal(t, goexit{}, (<-second).fault)
	})
}

// TestAGoexitAsAGetAfterShutDownStartsItsItem: a Get the owner applies once the queue is shutting
// down takes its item itself. The metrics end the goroutine as the item starts: that Get's
// caller ends, and the item goes back, behind the others.
func TestAGoexitAsAGetAfterShutDownStartsItsItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none, latency atomic.Int32
		q := New(Config[string]{Storage: foreignFIFO{&queue.FIFO[string]{}}, // Gets are commands
			Metrics: metrics.Config{Name: "q", Provider: newFailing(&none, &latency, &none, false)}})
		for _, item := range []string{"c", "a", "b"} {
			q.Add(item)
		}
		c, _ := q.Get()
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			q.ShutDownWithDrain()
		}()
		synctest.Wait()
		latency.Store(1)
		mustEnd(t, func() { q.Get() })
		for _, want := range []string{"b", "a"} {
			item, _ := q.Get()
			assert.Equal(t, want, item)
			q.Done(item)
		}
		q.Done(c)
		<-drained
	})
}

// foreignFIFO is the built-in FIFO as another package's storage: not read ahead.
type foreignFIFO struct{ queue.Storage[string] }

// goexitClock is a clock whose After ends the goroutine, its first n times.
type goexitClock struct {
	clock.Real
	n, calls atomic.Int32
}

func (c *goexitClock) After(d time.Duration) <-chan time.Time {
	c.calls.Add(1)
	if c.n.Add(-1) >= 0 {
		runtime.Goexit()
	}
	return c.Real.After(d)
}

// TestAClockThatAlwaysEndsTheGoroutineEndsAFewPerCommand: the owner that takes over ends the
// turn cut short, but stops trying after maxCuts owners in a row ended there: a clock whose
// After always ends the goroutine ends a few per command, not one after another without end.
func TestAClockThatAlwaysEndsTheGoroutineEndsAFewPerCommand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &goexitClock{}
		q := New(Config[string]{Clock: c, Delaying: true}) // its heartbeat waits on c
		c.n.Store(1000)
		q.AddAfter("a", time.Second, nil) // due before the heartbeat: the alarm moves
		synctest.Wait()
		assert.LessOrEqual(t, c.calls.Load(), int32(maxCuts+2))
		c.n.Store(0)
		q.ShutDown()
	})
}

// TestAClockThatEndsTheGoroutineTwiceStillArmsTheAlarm: after two owners in a row ended as they
// armed the alarm, the third arms it, and the delayed item falls due.
func TestAClockThatEndsTheGoroutineTwiceStillArmsTheAlarm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &goexitClock{}
		q := New(Config[string]{Clock: c, Delaying: true})
		c.n.Store(2)
		q.AddAfter("a", time.Second, nil)
		time.Sleep(5 * time.Second)
		assert.Equal(t, 1, q.Len())
		q.ShutDown()
	})
}

// TestAGoexitAsAPriorityQueueHandsOutToSeveralGetters: every getter waiting as items come is
// served, though the metrics end the goroutine at two hand-outs in a row.
func TestAGoexitAsAPriorityQueueHandsOutToSeveralGetters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none, latency atomic.Int32
		q := NewPriority[string](nil, metrics.Config{Name: "q", Provider: newFailing(&none, &latency, &none, false)})
		got := make(chan string, 3)
		for range 3 {
			go func() {
				item, _ := q.Get()
				got <- item // not reached by the getters that end
			}()
		}
		synctest.Wait()
		latency.Store(2)
		q.AddBatch("a", "b", "c")
		synctest.Wait()
		require.Len(t, got, 1, "the third getter is served")
		q.ShutDown()
	})
}

// TestAGoexitAsAPriorityQueueHandsOutAnItem: the getter hears of the Goexit and the item goes
// back, behind the others of its priority.
func TestAGoexitAsAPriorityQueueHandsOutAnItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none, latency atomic.Int32
		q := NewPriority[string](nil, metrics.Config{Name: "q", Provider: newFailing(&none, &latency, &none, false)})
		q.Add("a")
		q.Add("b")
		latency.Store(1)
		mustEnd(t, func() { q.Get() })
		for _, want := range []string{"b", "a"} {
			item, _ := q.Get()
			assert.Equal(t, want, item)
			q.Done(item)
		}
		assert.Zero(t, q.Snapshot().Processing)
		q.ShutDown()
	})
}

// TestAGetCutShortKeepsWhatItTookFromReady: a Get the owner applies takes b from ready, and must
// first start a, which another getter took before. a's metrics end the goroutine: a is owed the
// Goexit, and the Get, tried again, still hands out b.
func TestAGetCutShortKeepsWhatItTookFromReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none, latency atomic.Int32
		q := newQueue(Config[string]{Storage: foreignFIFO{&queue.FIFO[string]{}},
			Metrics: metrics.Config{Name: "q", Provider: newFailing(&none, &latency, &none, false)}})
		put := func(c command[string]) chan result[string] { return putAsking(q, c) }
		a, ticks := &alarm{}, &alarm{}
		turn := func() { // in a goroutine of its own, which a Goexit may end
			done := make(chan struct{})
			go func() {
				defer close(done)
				q.turn(a, ticks)
			}()
			<-done
		}
		put(command[string]{op: opWant})
		put(command[string]{op: opWant})
		put(command[string]{op: opAdd, item: "a"})
		put(command[string]{op: opAdd, item: "b"})
		turn()
		get := put(command[string]{op: opGet}) // stamped before the other getter's take
		raise(&q.taken, (<-q.ready).seq)       // the other getter takes a
		latency.Store(1)
		turn() // ends as a starts, inside the Get
		turn() // the Get again
		assert.Equal(t, "b", (<-get).item)
	})
}

// nthGauge is a gauge whose n-th Inc from now calls runtime.Goexit.
type nthGauge struct{ n *atomic.Int32 }

func (g nthGauge) Inc() {
	if g.n.Add(-1) == 0 {
		runtime.Goexit()
	}
}
func (g nthGauge) Dec() {}

// failingDepth is failing with a depth gauge that ends the goroutine at its n-th Inc.
type failingDepth struct {
	failing
	depth nthGauge
}

func (p failingDepth) NewDepthMetric(string) metrics.GaugeMetric { return p.depth }

// TestASecondGoexitAsAPriorityQueueGivesBackAnItem: the metrics end the goroutine as an item is
// handed out, and again as it goes back (its depth moves): the getter has heard of the first
// all the same.
func TestASecondGoexitAsAPriorityQueueGivesBackAnItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none, latency, depth atomic.Int32
		q := NewPriority[string](nil, metrics.Config{Name: "q",
			Provider: failingDepth{newFailing(&none, &latency, &none, false), nthGauge{&depth}}})
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			q.Get()
			t.Error("the Get returned")
		}()
		synctest.Wait()
		latency.Store(1)
		depth.Store(2) // the add of a, then a going back
		q.Add("a")     // its turn hands a out
		<-ended
		q.ShutDown()
	})
}

// mustEnd calls f in a goroutine of its own and returns once that goroutine has ended, which f
// must end with the Goexit the queue raises in it, not by returning.
func mustEnd(t *testing.T, f func()) {
	t.Helper()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		f()
		t.Error("returned instead of ending its goroutine")
	}()
	<-ended
}

// putAsking puts c in q's mailbox with a reply channel of its own, which it returns, as a caller
// that waits for the answer would, without waiting: the test drives the owner's turns itself.
func putAsking(q *Queue[string], c command[string]) chan result[string] {
	c.reply = make(chan result[string], 1)
	q.mailbox.put(c)
	return c.reply
}
