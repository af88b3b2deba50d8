package extensions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The shape of an AddBatch round. Every item is added once, so that no add is merged into
// another and a batch holds a run of the queue of its own.
const (
	batchProducers = 6
	batchesEach    = 40 // batches per producer, fewer than 1<<8
	batchMaxSize   = 9  // items per batch: 2 to batchMaxSize, fewer than 1<<8
	batchObservers = 2
	batchSamples   = 150 // Len or Snapshot calls per observer
	batchStep      = 10 * time.Microsecond
)

// TestAddBatch has producers call AddBatch at the same instants of the bubble's clock while
// others look at the queue, and checks that nobody ever sees part of a batch and that order
// is kept. In observed rounds every batch has the same size, nobody takes items while they are
// added, and observers call Len and Snapshot: each count must be a whole number of batches,
// and never less than the one before. In consumed rounds a single worker takes the items as
// they come. Either way the worker must receive each batch in one run, in its order, the
// batches of a producer in the order they were added, and, while it is inside a batch, Len
// must count the rest of it. Consecutive rounds cycle through the kinds of queue, each
// observed and consumed.
func TestAddBatch(t *testing.T) {
	var total batchCounts
	playRounds(t, "TestAddBatch", 10*len(kinds)*2, func(t *testing.T, seed uint64) (string, *findings) {
		b := newBatchRound(seed)
		synctest.Test(t, func(*testing.T) { b.run() })
		total.add(b)
		return b.String(), &b.found
	})
	t.Logf("%d rounds: %d batches of %d items; %d counts taken by observers, %d by the worker inside a batch",
		total.rounds, total.batches, total.items, total.samples, total.inside)
}

// batchCounts are the figures of the rounds.
type batchCounts struct {
	rounds, batches, items, samples, inside int
}

func (c *batchCounts) add(b *batchRound) {
	c.rounds++
	c.batches += batchProducers * batchesEach
	c.items += b.items
	c.samples += b.samples
	c.inside += b.inside
}

// batchRound is one round of TestAddBatch.
type batchRound struct {
	kind     kind
	seed     uint64
	observed bool // the items are taken once they are all added, and observers count them
	sizes    [batchProducers][batchesEach]int
	items    int // in all batches

	q     subject
	found findings

	mu      sync.Mutex // guards samples, which the observers count
	samples int

	// The worker's view, only the worker's.
	next   [batchProducers]int // the batch of each producer due next
	open   *place              // where the next item must come from, inside a batch; nil between batches
	inside int                 // Len calls inside a batch
}

// place is an item's place: its producer, its batch among the producer's, and its index
// in the batch.
type place struct{ producer, batch, index int }

// key returns the item at p: distinct for every place, and never the zero item.
func (p place) key() int { return 1 + (p.producer<<16 | p.batch<<8 | p.index) }

// placeOf returns the place of the item key.
func placeOf(key int) place {
	v := key - 1
	return place{producer: v >> 16, batch: v >> 8 & 0xff, index: v & 0xff}
}

func (p place) String() string {
	return fmt.Sprintf("item %d of batch %d of producer %d", p.index, p.batch, p.producer)
}

func newBatchRound(seed uint64) *batchRound {
	r := rand.New(rand.NewPCG(seed, 0))
	b := &batchRound{kind: kindOf(seed), seed: seed, observed: seed/uint64(len(kinds))%2 == 0}
	same := 2 + r.IntN(batchMaxSize-1)
	for p := range b.sizes {
		for i := range b.sizes[p] {
			b.sizes[p][i] = same
			if !b.observed {
				b.sizes[p][i] = 2 + r.IntN(batchMaxSize-1)
			}
			b.items += b.sizes[p][i]
		}
	}
	return b
}

func (b *batchRound) String() string {
	if b.observed {
		return fmt.Sprintf("%s queue, batches of %d, observed", b.kind.name, b.sizes[0][0])
	}
	return b.kind.name + " queue, batches taken as they come"
}

// run plays the round in a synctest bubble.
func (b *batchRound) run() {
	b.q = b.kind.build()
	var producing, observing sync.WaitGroup
	for p := range batchProducers {
		producing.Go(func() { b.produce(p, rand.New(rand.NewPCG(b.seed, uint64(1+p)))) })
	}
	if b.observed {
		for o := range batchObservers {
			observing.Go(func() { b.observe(rand.New(rand.NewPCG(b.seed, uint64(1<<10+o)))) })
		}
		producing.Wait()
		observing.Wait()
		b.consume()
	} else {
		b.consume()
		producing.Wait()
	}
	b.q.plain.ShutDown()
	if _, shutdown := b.q.plain.Get(); !shutdown {
		b.found.add("[extra] once every item was handed out and the queue shut down, Get handed out another")
	}
}

// produce adds the batches of producer p, pausing 0 to 3 steps before each.
func (b *batchRound) produce(p int, r *rand.Rand) {
	for i, size := range b.sizes[p] {
		time.Sleep(batchStep * time.Duration(r.IntN(4)))
		items := make([]int, size)
		for j := range items {
			items[j] = place{producer: p, batch: i, index: j}.key()
		}
		b.q.ext.AddBatch(items...)
	}
}

// observe counts the queue's items, with Len or with Snapshot, while nobody takes any: each
// count must be a whole number of batches, and never less than the one before.
func (b *batchRound) observe(r *rand.Rand) {
	size, last := b.sizes[0][0], 0
	for range batchSamples {
		time.Sleep(batchStep * time.Duration(r.IntN(3)))
		n, how := b.q.plain.Len(), "Len"
		if r.IntN(2) == 0 {
			n, how = b.q.ext.Snapshot().Queued, "Snapshot"
		}
		if n%size != 0 {
			b.found.add("[partial-batch] %s counted %d items, not a whole number of batches of %d", how, n, size)
		}
		if n < last {
			b.found.add("[partial-batch] %s counted %d items after %d, and nobody takes any", how, n, last)
		}
		last = n
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.samples += batchSamples
}

// consume takes every item, one at a time, and checks where each comes from. It gives up,
// saying what it missed, if an item has not come within the watchdog on the bubble's clock.
func (b *batchRound) consume() {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	for n := range b.items {
		item, shutdown, err := b.q.ext.GetWithContext(ctx)
		if err != nil || shutdown {
			b.found.add("[lost] %d of %d items were handed out, then nothing for %v (%v, shutdown %v)", n, b.items, watchdog, err, shutdown)
			return
		}
		b.take(placeOf(item))
		b.q.plain.Done(item)
	}
	if b.open != nil {
		b.found.add("[lost] every item was handed out but the rest of a batch, from %v", b.open)
	}
}

// take checks the place of the item the worker was handed: the next of the batch it is
// inside, or the first of a producer's next batch; and, inside a batch, that the rest of it
// is queued.
func (b *batchRound) take(at place) {
	switch {
	case at.producer >= batchProducers || at.batch >= batchesEach || at.index >= b.sizes[at.producer][at.batch]:
		b.found.add("[unknown-item] the worker got %d, which was never added", at.key())
		return
	case b.open != nil && at != *b.open:
		b.found.add("[interleaved] the worker was handed %v where %v was due", at, b.open)
	case b.open == nil && at.index != 0:
		b.found.add("[order] the worker was handed %v first", at)
	case b.open == nil && at.batch != b.next[at.producer]:
		b.found.add("[order] the worker was handed batch %d of producer %d where batch %d was due", at.batch, at.producer, b.next[at.producer])
	}
	b.next[at.producer] = at.batch + 1
	b.open = nil
	rest := b.sizes[at.producer][at.batch] - at.index - 1
	if rest == 0 {
		return
	}
	b.open = &place{producer: at.producer, batch: at.batch, index: at.index + 1}
	b.inside++
	if n := b.q.plain.Len(); n < rest {
		b.found.add("[partial-batch] with %v handed out, Len counts %d items, and %d of its batch are still to come", at, n, rest)
	}
}
