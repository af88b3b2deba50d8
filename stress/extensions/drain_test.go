package extensions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The shape of a ShutDownWithDrainContext round. Every add, get and Done falls on a whole
// millisecond of the bubble's clock after the start, or a quarter past one; the drain starts a
// quarter past and its deadline falls half past, an instant at which nothing else happens
// until the drain has returned, so which items are in processing at the deadline is known
// exactly.
const (
	drainProducers = 4
	drainCalls     = 30 // calls per producer, one every 0 to 2 ms
	drainWorkers   = 8
	drainKeys      = 64
	stuckOdds      = 6 // one processing in stuckOdds holds its item until the drain has returned
	watchdog       = 10 * time.Minute
	// inTimeSlack is how long after the drain's call the deadline of an inTime round falls at
	// the least: more than the workers need to process every item queued then.
	inTimeSlack = 40 * time.Millisecond
)

// drainMode is what ends the drain of a round.
type drainMode int

const (
	// cutShort rounds give the drain a deadline that falls while some workers hold their item
	// until the drain has returned.
	cutShort drainMode = iota
	// inTime rounds give the drain a deadline after processing ends; no worker holds its item.
	inTime
	// patient rounds give the drain a context that never ends; the workers that hold their
	// item let go after a while.
	patient
	drainModes
)

// TestShutDownWithDrainContext shuts a queue down with ShutDownWithDrainContext while
// producers add and workers process, in some rounds some of them holding their item until the
// drain has returned (and then calling Done, or never). With a deadline, it checks that the
// drain returns, at the deadline, exactly the items held by workers at that instant, with
// context.DeadlineExceeded, or, if processing ended before, nil, nil once nothing was in
// processing. With a context that never ends (the held items are released after a while), it
// checks that the drain returns nil, nil once nothing is in processing, and not before.
// Consecutive rounds cycle through every kind of queue with every drainMode.
func TestShutDownWithDrainContext(t *testing.T) {
	var total drainCounts
	playRounds(t, "TestShutDownWithDrainContext", 30*len(kinds)*int(drainModes), func(t *testing.T, seed uint64) (string, *findings) {
		d := newDrain(seed)
		synctest.Test(t, func(*testing.T) { d.run() })
		d.check()
		total.add(d)
		return d.String(), &d.found
	})
	t.Logf("%d rounds, %d items handed out: %d drains cut short by their deadline, reporting %d items in processing; "+
		"%d completed before their deadline; %d without a deadline completed",
		total.rounds, total.spans, total.byDeadline, total.reported, total.beforeDeadline, total.noDeadline)
}

// drainCounts are the figures of the rounds.
type drainCounts struct {
	rounds, spans, byDeadline, reported, beforeDeadline, noDeadline int
}

func (c *drainCounts) add(d *drain) {
	c.rounds++
	c.spans += len(d.spans)
	switch {
	case d.mode == patient:
		c.noDeadline++
	case d.endedByDeadline():
		c.byDeadline++
		c.reported += len(d.inFlight)
	default:
		c.beforeDeadline++
	}
}

// drain is one round of TestShutDownWithDrainContext.
type drain struct {
	kind kind
	seed uint64
	mode drainMode
	// After the start: when the drain is called, its deadline (unless patient), and (patient)
	// when the workers holding an item let go.
	callAfter, deadlineAfter, releaseAfter time.Duration

	q subject
	// release is closed once the drain returned: held items are let go. It is made inside the
	// bubble: a receive on a channel made outside is not durably blocking, so the bubble's
	// clock would stop while a worker waits on it, and the drain's deadline would never come.
	release  chan struct{}
	mu       sync.Mutex
	spans    []span
	found    findings
	start    time.Time
	calledAt time.Time
	deadline time.Time // zero in a patient round

	returnedAt time.Time
	inFlight   []int
	err        error
}

// span is one processing: a key handed out by Get at got and, unless done is zero, passed to
// Done at done (the instants of the bubble's clock before the calls returned and began).
type span struct {
	key       int
	got, done time.Time
}

func newDrain(seed uint64) *drain {
	r := rand.New(rand.NewPCG(seed, 0))
	d := &drain{
		kind:      kindOf(seed),
		seed:      seed,
		mode:      drainMode(seed % uint64(drainModes)),
		callAfter: time.Duration(5+r.IntN(11))*time.Millisecond + 250*time.Microsecond,
	}
	d.deadlineAfter = d.callAfter + time.Duration(r.IntN(9))*time.Millisecond + 250*time.Microsecond
	if d.mode == inTime {
		d.deadlineAfter += inTimeSlack
	}
	d.releaseAfter = d.callAfter + time.Duration(1+r.IntN(10))*time.Millisecond
	return d
}

func (d *drain) String() string {
	switch d.mode {
	case patient:
		return fmt.Sprintf("%s queue, drained at %v without a deadline, held items let go at %v", d.kind.name, d.callAfter, d.releaseAfter)
	case inTime:
		return fmt.Sprintf("%s queue, drained at %v with a deadline at %v, no item held", d.kind.name, d.callAfter, d.deadlineAfter)
	}
	return fmt.Sprintf("%s queue, drained at %v with a deadline at %v, some items held until it returns", d.kind.name, d.callAfter, d.deadlineAfter)
}

// run plays the round in a synctest bubble.
func (d *drain) run() {
	d.start = time.Now()
	d.q = d.kind.build()
	d.release = make(chan struct{})
	var producing, working sync.WaitGroup
	for p := range drainProducers {
		producing.Go(func() { d.produce(rand.New(rand.NewPCG(d.seed, uint64(1+p)))) })
	}
	for w := range drainWorkers {
		working.Go(func() { d.work(rand.New(rand.NewPCG(d.seed, uint64(1<<10+w)))) })
	}
	time.Sleep(d.callAfter)
	d.shutDown()
	close(d.release)
	producing.Wait()
	working.Wait()
}

// produce makes the calls of one producer; those that come after the drain began do nothing.
func (d *drain) produce(r *rand.Rand) {
	key := func() int { return 1 + r.IntN(drainKeys) }
	for range drainCalls {
		time.Sleep(time.Duration(r.IntN(3)) * time.Millisecond)
		switch x := r.IntN(6); {
		case x == 0:
			d.q.ext.AddBatch(key(), key(), key())
		case x == 1 && d.q.delayed != nil:
			d.q.delayed.AddAfter(key(), time.Duration(1+r.IntN(4))*time.Millisecond)
		default:
			d.q.plain.Add(key())
		}
	}
}

// work processes items until the queue shuts down: most for 1 to 3 ms, some (except in an
// inTime round) until the drain has returned, and then half of those are never passed to Done,
// or, in a patient round, until the release instant.
func (d *drain) work(r *rand.Rand) {
	for {
		item, shutdown := d.q.plain.Get()
		if shutdown {
			return
		}
		i := d.got(item)
		if d.mode == inTime || r.IntN(stuckOdds) != 0 {
			time.Sleep(time.Duration(1+r.IntN(3)) * time.Millisecond)
		} else if d.mode == patient {
			time.Sleep(time.Until(d.start.Add(d.releaseAfter)))
		} else {
			<-d.release
			if r.IntN(2) == 0 {
				return // never calls Done
			}
		}
		d.ending(i)
		d.q.plain.Done(item)
	}
}

// got records that a Get returned key now, and returns the span's number.
func (d *drain) got(key int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.spans = append(d.spans, span{key: key, got: time.Now()})
	return len(d.spans) - 1
}

// ending records that span i is about to end with Done.
func (d *drain) ending(i int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.spans[i].done = time.Now()
}

// shutDown calls ShutDownWithDrainContext, under a watchdog on the bubble's clock.
func (d *drain) shutDown() {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	d.calledAt = time.Now()
	if d.mode != patient {
		d.deadline = d.start.Add(d.deadlineAfter)
		ctx, cancel = context.WithDeadline(ctx, d.deadline)
	}
	defer cancel()
	returned := make(chan struct{})
	go func() {
		d.inFlight, d.err = d.q.ext.ShutDownWithDrainContext(ctx)
		d.returnedAt = time.Now()
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(watchdog):
		d.found.add("[watchdog] ShutDownWithDrainContext did not return within %v", watchdog)
		d.q.plain.ShutDown() // ends the drain, so the round can end
		<-returned
	}
}

// check checks what the drain returned against what the workers held.
func (d *drain) check() {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case !d.returnedAt.Before(d.calledAt.Add(watchdog)):
		return // reported already
	case d.endedByDeadline():
		d.checkInFlight()
	case d.inFlight != nil || d.err != nil:
		d.found.add("[drain-result] the drain returned at %v, before its deadline, with %v and %v; want nil, nil",
			d.after(d.returnedAt), d.inFlight, d.err)
	case d.mode != patient && d.returnedAt.After(d.deadline):
		d.found.add("[drain-late] the drain returned at %v, after its deadline at %v", d.after(d.returnedAt), d.deadlineAfter)
	default:
		d.checkCompleted()
	}
}

// endedByDeadline reports whether the drain returned because its deadline came.
func (d *drain) endedByDeadline() bool { return d.mode != patient && d.returnedAt.Equal(d.deadline) }

// checkInFlight checks the items a drain cut short by its deadline returned: those the
// workers held at the deadline, with context.DeadlineExceeded. A worker that held its item
// until the drain returned calls Done at the deadline's instant of the bubble's clock, but
// after the drain returned: it held the item.
func (d *drain) checkInFlight() {
	var held []int
	for _, s := range d.spans {
		if s.got.Before(d.deadline) && (s.done.IsZero() || !s.done.Before(d.deadline)) {
			held = append(held, s.key)
		}
	}
	slices.Sort(held)
	got := slices.Sorted(slices.Values(d.inFlight))
	if !slices.Equal(got, held) {
		d.found.add("[in-flight] the drain cut short at %v returned %v; the workers held %v", d.deadlineAfter, got, held)
	}
	if d.err != context.DeadlineExceeded {
		d.found.add("[in-flight] the drain cut short at %v returned the error %v, want %v", d.deadlineAfter, d.err, context.DeadlineExceeded)
	}
}

// checkCompleted checks that no item was in processing across the instant the drain
// returned: an item handed out before it and not passed to Done until after it.
func (d *drain) checkCompleted() {
	for _, s := range d.spans {
		if s.got.Before(d.returnedAt) && (s.done.IsZero() || s.done.After(d.returnedAt)) {
			d.found.add("[drain] the drain called at %v returned at %v, while key %d was in processing (from %v to %s)",
				d.callAfter, d.after(d.returnedAt), s.key, d.after(s.got), d.doneAfter(s))
			return
		}
	}
}

// after returns how long after the start t is.
func (d *drain) after(t time.Time) time.Duration { return t.Sub(d.start) }

func (d *drain) doneAfter(s span) string {
	if s.done.IsZero() {
		return "never"
	}
	return d.after(s.done).String()
}
