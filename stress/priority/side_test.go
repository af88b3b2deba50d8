package priority

import (
	"fmt"
	"slices"
	"strconv"
)

// maxPendingGets bounds the Gets a side may have under way at once; a get step beyond it is
// skipped, on both sides alike.
const maxPendingGets = 4

// side is one of the two queues of a run, with the Gets started in goroutines that have not
// returned yet and the items handed out and not done.
type side struct {
	q        queue
	metrics  *tally   // nil when the variant records none
	returned chan got // the Gets started in a goroutine, once they return
	pending  int      // Gets under way
	held     []string // items handed out and not done, sorted
	shut     bool     // ShutDown or ShutDownWithDrain has been called
}

// got is what a GetWithPriority returned.
type got struct {
	item     string
	priority int
	shutdown bool
}

func (g got) String() string {
	if g.shutdown {
		return "shutdown"
	}
	return fmt.Sprintf("%s/%d", g.item, g.priority)
}

func newSide(q queue, m *tally) *side {
	return &side{q: q, metrics: m, returned: make(chan got, maxPendingGets)}
}

// pick returns the item a done step ends: a held item, chosen by s.pick, or s's key when none is
// held (Done of an item not handed out does nothing, in both libraries).
func (sd *side) pick(s step) string {
	if s.kind != done {
		return ""
	}
	if len(sd.held) == 0 {
		return s.keys[0]
	}
	return sd.held[s.pick%len(sd.held)]
}

// apply makes the call s describes and returns what it observed: the result of a query, "" for
// a call that returns nothing, or why it was skipped. A done step ends item. A Get is started in
// a goroutine; settle collects it.
func (sd *side) apply(s step, item string) string {
	switch s.kind {
	case addWithOpts:
		sd.q.addWithOpts(opts{after: s.delay, rateLimited: s.rateLimited, priority: s.priority}, s.keys...)
	case add:
		sd.q.Add(s.keys[0])
	case addAfter:
		sd.q.AddAfter(s.keys[0], s.delay)
	case addRateLimited:
		sd.q.AddRateLimited(s.keys[0])
	case get:
		if sd.pending == maxPendingGets {
			return "skipped: enough Gets wait"
		}
		sd.pending++
		go func() {
			item, priority, shutdown := sd.q.GetWithPriority()
			sd.returned <- got{item, priority, shutdown}
		}()
	case done:
		if i, ok := slices.BinarySearch(sd.held, item); ok {
			sd.held = slices.Delete(sd.held, i, i+1)
		}
		sd.q.Done(item)
	case length:
		return strconv.Itoa(sd.q.Len())
	case forget:
		sd.q.Forget(s.keys[0])
	case numRequeues:
		return strconv.Itoa(sd.q.NumRequeues(s.keys[0]))
	case shuttingDown:
		return strconv.FormatBool(sd.q.ShuttingDown())
	case shutDown:
		return sd.shutDown(s.drain)
	}
	return ""
}

// shutDown shuts the queue down once (controller-runtime's panics on a second ShutDown). With
// drain and no item held, it calls ShutDownWithDrain, which then returns at once in both
// libraries: with items held, actorqueue's would wait for them, controller-runtime's would not
// (a documented difference), so it calls ShutDown.
func (sd *side) shutDown(drain bool) string {
	if sd.shut {
		return "skipped: already shut down"
	}
	sd.shut = true
	if drain && len(sd.held) == 0 {
		sd.q.ShutDownWithDrain()
		return "drained"
	}
	sd.q.ShutDown()
	return ""
}

// settle collects the Gets that have returned, in the order of their results (which getter
// gets which item is up to the scheduler), and holds the items they took.
func (sd *side) settle() []string {
	var out []string
	for {
		select {
		case g := <-sd.returned:
			sd.pending--
			if !g.shutdown {
				i, _ := slices.BinarySearch(sd.held, g.item)
				sd.held = slices.Insert(sd.held, i, g.item)
			}
			out = append(out, g.String())
		default:
			slices.Sort(out)
			return out
		}
	}
}

// tally returns the side's metrics, or "" when it records none.
func (sd *side) tally() string {
	if sd.metrics == nil {
		return ""
	}
	return sd.metrics.String()
}
