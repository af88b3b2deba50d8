package extensions

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The shape of a GetWithContext round.
const (
	churnProducers = 8
	churnCalls     = 300 // calls per producer
	churnKeys      = 200 // keys 1 to churnKeys; 0, the zero item, is never added
	churnWorkers   = 12  // the most workers at once, besides the one that settles the round
	// churnStep is the grid every pause and delay of a round is on, so that adds, gets and
	// cancellations fall on the same instants of the bubble's clock and race each other.
	churnStep  = 10 * time.Microsecond
	churnQuiet = time.Second // longer than any delay or retry: once past, everything is due
)

// TestGetWithContextChurn runs producers that Add, AddBatch, AddAfter and AddRateLimited on a
// few hundred keys, and workers that take items with GetWithContext and are cancelled, or
// time out, at random instants while new ones start: the pool shrinks, sometimes to nothing,
// and grows again. It checks that a getter that gives up takes nothing and says why, that no
// item is handed to two workers at once or more often than it was added, and that once all is
// due every item was processed after its last add and nothing is left queued or in processing.
func TestGetWithContextChurn(t *testing.T) {
	var total churnCounts
	playRounds(t, "TestGetWithContextChurn", 4*len(kinds), func(t *testing.T, seed uint64) (string, *findings) {
		c := &churn{kind: kindOf(seed), seed: seed}
		synctest.Test(t, func(*testing.T) { c.run() })
		total.add(&c.counts)
		return c.kind.name + " queue", &c.found
	})
	t.Logf("%d rounds: %d adds, %d processings, %d workers started, %d of them cancelled or timed out in GetWithContext",
		total.rounds, total.adds.Load(), total.processings.Load(), total.workers.Load(), total.gaveUp.Load())
}

// churn is one round of TestGetWithContextChurn: a queue, what happened to each key, and
// what was found.
type churn struct {
	kind   kind
	seed   uint64
	q      subject
	clock  atomic.Int64 // stamps: a stamp taken after another was returned is larger
	keys   [churnKeys + 1]keyLog
	counts churnCounts
	found  findings
}

// keyLog is what happened to one key. Stamps come from the round's clock.
type keyLog struct {
	adds    atomic.Int64 // adds started
	lastAdd atomic.Int64 // stamp before the latest add started
	gets    atomic.Int64 // Gets that returned the key
	lastGet atomic.Int64 // stamp after the latest Get of the key returned
	holder  atomic.Int64 // the worker processing the key, 0 when none
}

// churnCounts are the figures of the rounds.
type churnCounts struct {
	rounds                             int
	adds, processings, workers, gaveUp atomic.Int64
}

func (c *churnCounts) add(o *churnCounts) {
	c.rounds++
	c.adds.Add(o.adds.Load())
	c.processings.Add(o.processings.Load())
	c.workers.Add(o.workers.Load())
	c.gaveUp.Add(o.gaveUp.Load())
}

func (c *churn) stamp() int64 { return c.clock.Add(1) }

// random returns the random source of the round's goroutine number stream.
func (c *churn) random(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(c.seed, stream)) }

// run plays the round in a synctest bubble.
func (c *churn) run() {
	c.q = c.kind.build()
	var producing, working sync.WaitGroup
	for p := range churnProducers {
		producing.Go(func() { c.produce(c.random(uint64(p))) })
	}
	produced := make(chan struct{})
	go func() {
		producing.Wait()
		close(produced)
	}()
	c.scale(&working, produced)

	// One worker that never gives up takes whatever the others left.
	ctx, cancel := context.WithCancel(context.Background())
	working.Go(func() { c.work(ctx, churnWorkers+1, c.random(1<<20)) })
	time.Sleep(churnQuiet)
	synctest.Wait()
	c.checkSettled()
	cancel()
	c.awaitWorkers(&working)
	c.q.plain.ShutDown()
	if s := c.q.ext.Snapshot(); s.Queued != 0 || s.Processing != 0 {
		c.found.add("[left-in-processing] once every worker gave up, the snapshot is %+v", s)
	}
}

// awaitWorkers waits for the workers, whose contexts have all ended, to give up. If some
// still wait in GetWithContext after the watchdog on the bubble's clock, it says so and shuts
// the queue down, which ends their wait, so that the round can end.
func (c *churn) awaitWorkers(working *sync.WaitGroup) {
	gone := make(chan struct{})
	go func() {
		working.Wait()
		close(gone)
	}()
	select {
	case <-gone:
	case <-time.After(watchdog):
		c.found.add("[stuck] workers still wait in GetWithContext %v after their contexts ended", watchdog)
		c.q.plain.ShutDown()
		<-gone
	}
}

// produce makes the calls of one producer, pausing now and then on the bubble's clock.
func (c *churn) produce(r *rand.Rand) {
	key := func() int { return 1 + r.IntN(churnKeys) }
	for range churnCalls {
		switch x := r.IntN(20); {
		case x < 3:
			batch := make([]int, 2+r.IntN(5))
			for i := range batch {
				batch[i] = key()
				c.adding(batch[i])
			}
			c.q.ext.AddBatch(batch...)
		case x < 7 && c.q.delayed != nil:
			k := key()
			c.adding(k)
			c.q.delayed.AddAfter(k, churnStep*time.Duration(r.IntN(300)-10)) // some at once
		case x < 10 && c.q.limited != nil:
			k := key()
			c.adding(k)
			c.q.limited.AddRateLimited(k)
		case x < 11 && c.q.limited != nil:
			c.q.limited.Forget(key())
		default:
			k := key()
			c.adding(k)
			c.q.plain.Add(k)
		}
		if r.IntN(2) == 0 {
			time.Sleep(churnStep * time.Duration(r.IntN(5)))
		}
	}
}

// adding records that an add of k is about to start.
func (c *churn) adding(k int) {
	c.counts.adds.Add(1)
	c.keys[k].adds.Add(1)
	raise(&c.keys[k].lastAdd, c.stamp())
}

// scale starts and cancels workers at random instants until produced is closed.
func (c *churn) scale(working *sync.WaitGroup, produced <-chan struct{}) {
	r := c.random(1 << 21)
	var live []context.CancelFunc
	next := 0
	for {
		select {
		case <-produced:
			for _, cancel := range live {
				cancel()
			}
			return
		case <-time.After(churnStep * time.Duration(1+r.IntN(20))):
		}
		target := r.IntN(churnWorkers + 1)
		if r.IntN(8) == 0 {
			target = 0
		}
		for len(live) > target {
			i := r.IntN(len(live))
			live[i]()
			live = append(live[:i], live[i+1:]...)
		}
		for len(live) < target {
			ctx, cancel := context.WithCancel(context.Background())
			if r.IntN(3) == 0 { // times out by itself, at an instant of its own
				ctx, cancel = context.WithTimeout(context.Background(), churnStep*time.Duration(r.IntN(50)))
			}
			live = append(live, cancel)
			next++
			id, stream := next, uint64(1<<22+next)
			working.Go(func() { c.work(ctx, id, c.random(stream)) })
		}
	}
}

// work is a worker numbered id: it processes items until its context ends.
func (c *churn) work(ctx context.Context, id int, r *rand.Rand) {
	c.counts.workers.Add(1)
	for {
		item, shutdown, err := c.q.ext.GetWithContext(ctx)
		if err != nil || shutdown {
			c.gaveUp(ctx, item, shutdown, err)
			return
		}
		c.hold(id, item)
		if r.IntN(4) == 0 {
			time.Sleep(churnStep * time.Duration(r.IntN(3)))
		}
		c.release(id, item)
		c.q.plain.Done(item)
	}
}

// gaveUp checks what a GetWithContext that handed out nothing returned: only ctx.Err(), once
// ctx has ended; the queue is not shut down while workers run.
func (c *churn) gaveUp(ctx context.Context, item int, shutdown bool, err error) {
	c.counts.gaveUp.Add(1)
	switch {
	case shutdown:
		c.found.add("[cancel] GetWithContext reported shutdown (item %d, error %v) on a queue not shut down", item, err)
	case ctx.Err() == nil:
		c.found.add("[cancel] GetWithContext returned %v before its context ended", err)
	case err != ctx.Err():
		c.found.add("[cancel] GetWithContext returned %v, its context's error is %v", err, ctx.Err())
	case item != 0:
		c.found.add("[cancel] GetWithContext gave up with %v but returned item %d", err, item)
	}
}

// hold records that worker id got item, and checks that it may.
func (c *churn) hold(id, item int) {
	if item < 1 || item > churnKeys {
		c.found.add("[unknown-item] worker %d got %d, which was never added", id, item)
		return
	}
	k := &c.keys[item]
	end := c.stamp()
	if n, adds := k.gets.Add(1), k.adds.Load(); n > adds {
		c.found.add("[extra-processing] key %d handed out for the %d-th time after %d adds", item, n, adds)
	}
	raise(&k.lastGet, end)
	if !k.holder.CompareAndSwap(0, int64(id)) {
		c.found.add("[double-processing] key %d handed to worker %d while worker %d processes it", item, id, k.holder.Load())
	}
	c.counts.processings.Add(1)
}

// release records that worker id is about to call Done with item.
func (c *churn) release(id, item int) {
	if item >= 1 && item <= churnKeys {
		c.keys[item].holder.CompareAndSwap(int64(id), 0)
	}
}

// checkSettled checks, once every add has fallen due and the workers wait, that the queue is
// empty and idle and that every key was processed after its last add.
func (c *churn) checkSettled() {
	if s := c.q.ext.Snapshot(); s.Queued != 0 || s.Processing != 0 || s.Dirty != 0 || s.Delayed != 0 {
		c.found.add("[not-settled] once all was due and a worker waits, the snapshot is %+v", s)
	}
	for item := 1; item <= churnKeys; item++ {
		k := &c.keys[item]
		if k.adds.Load() > 0 && k.lastGet.Load() < k.lastAdd.Load() {
			c.found.add("[lost-add] key %d: no Get returned it after its last add (of %d) began", item, k.adds.Load())
		}
	}
}

// raise raises v to at least to.
func raise(v *atomic.Int64, to int64) {
	for seen := v.Load(); seen < to && !v.CompareAndSwap(seen, to); {
		seen = v.Load()
	}
}
