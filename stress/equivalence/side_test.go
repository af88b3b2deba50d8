package equivalence

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing/synctest"
)

// maxPendingGets bounds the Gets a side may have under way at once; a get step beyond it is
// skipped, on both sides alike.
const maxPendingGets = 3

// steering keeps the steps of a run off the divergences from client-go that
// divergences_test.go shows; a step it rules out is skipped, on both sides alike.
type steering struct {
	maxDrains int // ShutDownWithDrains under way at once: two show a divergence
	// spareShutDown skips a second ShutDown of a delaying queue while a ShutDownWithDrain that
	// started after the first waits: it would show a divergence.
	spareShutDown bool
}

// steered is the steering of the differential suite.
var steered = steering{maxDrains: 1, spareShutDown: true}

// side is one of the two queues of a run, with the calls started in goroutines that have not
// returned yet.
type side struct {
	q         queue
	steering  steering
	returned  chan call // the calls started in a goroutine, once they return
	gets      int       // Gets under way
	drains    int       // ShutDownWithDrains under way
	held      []string  // items handed out whose processing has not ended, sorted
	over      bool      // a Get has reported shutdown
	shut      bool      // a ShutDown has been called
	lateDrain bool      // a ShutDownWithDrain that started after a ShutDown is under way
}

// call is a call that was started in a goroutine and has returned.
type call struct {
	kind     kind   // get, shutDown or shutDownWithDrain
	item     string // what a Get handed out
	shutdown bool   // what a Get said about shutdown
}

func (c call) String() string {
	switch {
	case c.kind != get:
		return fmt.Sprintf("%s returned", strings.TrimPrefix(step{kind: c.kind}.String(), "go "))
	case c.shutdown:
		return "Get() = shutdown"
	}
	return "Get() = " + c.item
}

func newSide(q queue, st steering) *side {
	// Between two settles, the calls under way are at most the pending Gets and drains and the
	// one ShutDown the last step may have started: returned has room for all of them, so no
	// goroutine ever waits to report.
	return &side{q: q, steering: st, returned: make(chan call, maxPendingGets+st.maxDrains+1)}
}

// apply makes the call s describes and returns what it observed: the result of a query, "" for
// a call that returns nothing, or "skipped". A done step ends the processing of item, which
// must be held. Calls that may block are started in a goroutine; settle collects them.
func (sd *side) apply(s step, item string) string {
	switch s.kind {
	case add:
		sd.q.plain.Add(s.key)
	case fill:
		for _, f := range fillers {
			sd.q.plain.Add(f)
		}
	case addAfter:
		sd.q.delayed.AddAfter(s.key, s.delay)
	case addRateLimited:
		sd.q.limited.AddRateLimited(s.key)
	case forget:
		sd.q.limited.Forget(s.key)
	case numRequeues:
		return strconv.Itoa(sd.q.limited.NumRequeues(s.key))
	case length:
		return strconv.Itoa(sd.q.plain.Len())
	case shuttingDown:
		return strconv.FormatBool(sd.q.plain.ShuttingDown())
	case done:
		sd.release(item)
		sd.q.plain.Done(item)
	case retry:
		if item == stray {
			return "skipped"
		}
		sd.release(item)
		sd.q.limited.AddRateLimited(item)
		sd.q.plain.Done(item)
	case doneUnheld:
		sd.q.plain.Done(s.key)
	case get:
		if sd.gets == maxPendingGets {
			return "skipped"
		}
		sd.gets++
		go func() {
			item, shutdown := sd.q.plain.Get()
			sd.returned <- call{kind: get, item: item, shutdown: shutdown}
		}()
	case shutDown:
		if sd.steering.spareShutDown && sd.lateDrain && sd.q.delayed != nil {
			return "skipped"
		}
		sd.shut = true
		go func() {
			sd.q.plain.ShutDown()
			sd.returned <- call{kind: shutDown}
		}()
	case shutDownWithDrain:
		if sd.drains == sd.steering.maxDrains {
			return "skipped"
		}
		sd.drains++
		sd.lateDrain = sd.shut
		go func() {
			sd.q.plain.ShutDownWithDrain()
			sd.returned <- call{kind: shutDownWithDrain}
		}()
	case getRun:
		return sd.getRun()
	case sleep:
		// The runner lets time pass for both sides at once.
	default:
		panic(fmt.Sprintf("side.apply: step kind %d", s.kind))
	}
	return ""
}

// settle collects the calls that have returned, in a canonical order (which of two waiting
// Gets receives an item is not part of the contract), and holds the items they handed out.
// Call it once the bubble is quiet (after synctest.Wait), so that every call that can return
// has.
func (sd *side) settle() (returned []string) {
	for {
		select {
		case c := <-sd.returned:
			returned = append(returned, c.String())
			switch c.kind {
			case get:
				sd.gets--
				if !c.shutdown {
					sd.held = append(sd.held, c.item)
				}
				sd.over = sd.over || c.shutdown
			case shutDownWithDrain:
				sd.drains--
				sd.lateDrain = false
			}
		default:
			slices.Sort(returned)
			slices.Sort(sd.held)
			return returned
		}
	}
}

// getRun calls Get, one call at a time, each waited for, until one blocks, which stays under
// way, or one reports shutdown. It returns what returned meanwhile, in order. Only takes
// reach the queue during the run, and no Done: a worker that gets several items before it
// ends any must still get every item that waits, however many. A run starts with no Get
// under way, else it is skipped (the queue would have nothing to hand out).
func (sd *side) getRun() string {
	if sd.gets > 0 {
		return "skipped"
	}
	// Every Get but the last hands out a distinct item: at most every key and filler.
	var returned []string
	for range len(keys) + len(fillers) + 1 {
		sd.apply(step{kind: get}, "")
		synctest.Wait()
		returned = append(returned, sd.settle()...)
		if sd.gets > 0 || sd.over {
			break
		}
	}
	return strings.Join(returned, ", ")
}

// release forgets that item is held.
func (sd *side) release(item string) {
	if i := slices.Index(sd.held, item); i >= 0 {
		sd.held = slices.Delete(sd.held, i, i+1)
	}
}

// pick returns the held item a done or retry step with the given pick ends, or the stray item
// when none is held.
func (sd *side) pick(pick int) string {
	if len(sd.held) == 0 {
		return stray
	}
	return sd.held[pick%len(sd.held)]
}

// finish shuts the queue down and ends the processing of the held items, so that no goroutine
// of the run outlives the bubble, even when the run stopped at a divergence. (In client-go, a
// ShutDownWithDrain that started after the ShutDown of a delaying queue waits for processing to
// end: a second ShutDown does not release it.)
func (sd *side) finish() {
	sd.q.plain.ShutDown()
	for _, item := range sd.held {
		sd.q.plain.Done(item)
	}
}
