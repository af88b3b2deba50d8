package equivalence

import (
	"fmt"
	"time"
)

// kind is what a step does.
type kind uint8

const (
	add               kind = iota // Add(key)
	addAfter                      // AddAfter(key, delay)
	addRateLimited                // AddRateLimited(key)
	forget                        // Forget(key)
	numRequeues                   // NumRequeues(key), observed
	length                        // Len, observed
	shuttingDown                  // ShuttingDown, observed
	get                           // Get, started in a goroutine: it may block
	done                          // Done of an item the test holds, chosen by pick
	retry                         // AddRateLimited then Done of a held item: a worker's failure
	shutDown                      // ShutDown, started in a goroutine
	shutDownWithDrain             // ShutDownWithDrain, started in a goroutine: it may block
	sleep                         // time passes on the bubble's clock
	fill                          // Add of every filler item, in order
	getRun                        // Gets, one at a time, until one blocks or reports shutdown
	doneUnheld                    // Done(key), whatever its state: only TestRunnerCatchesADifference
)

// fillers are the items a fill step adds: more than actorqueue reads ahead for its getters (64
// items, readySize in package actor), so that the keys added next wait in its storage, where a
// different code path dedups them, and a run of Gets empties ready with items still waiting.
// CI's mutation step fails (no suite catches `unnudged`) if they stop outnumbering what ready
// holds.
var fillers = func() []string {
	f := make([]string, 72)
	for i := range f {
		f[i] = fmt.Sprintf("p%02d", i)
	}
	return f
}()

// step is one operation of a sequence. It is plain data, so that a sequence can be shrunk: the
// item a done step ends is resolved when the step runs, from the items the test then holds.
type step struct {
	kind  kind
	key   string        // the item of add, addAfter, addRateLimited, forget, numRequeues, doneUnheld
	delay time.Duration // the delay of addAfter, the time a sleep lets pass
	pick  int           // which held item a done or retry step ends, modulo how many are held
}

// String writes the step as the call it makes; a done step shows which pick it is, the runner's
// transcript shows the item.
func (s step) String() string {
	switch s.kind {
	case add:
		return fmt.Sprintf("Add(%s)", s.key)
	case addAfter:
		return fmt.Sprintf("AddAfter(%s, %v)", s.key, s.delay)
	case addRateLimited:
		return fmt.Sprintf("AddRateLimited(%s)", s.key)
	case forget:
		return fmt.Sprintf("Forget(%s)", s.key)
	case numRequeues:
		return fmt.Sprintf("NumRequeues(%s)", s.key)
	case length:
		return "Len()"
	case shuttingDown:
		return "ShuttingDown()"
	case get:
		return "go Get()"
	case done:
		return fmt.Sprintf("Done(held item #%d)", s.pick)
	case retry:
		return fmt.Sprintf("AddRateLimited, Done(held item #%d)", s.pick)
	case shutDown:
		return "go ShutDown()"
	case shutDownWithDrain:
		return "go ShutDownWithDrain()"
	case sleep:
		return fmt.Sprintf("time.Sleep(%v)", s.delay)
	case fill:
		return fmt.Sprintf("Add(%s) … Add(%s)", fillers[0], fillers[len(fillers)-1])
	case getRun:
		return "Get() … until one blocks"
	case doneUnheld:
		return fmt.Sprintf("Done(%s)", s.key)
	}
	return fmt.Sprintf("step(%d)", s.kind)
}
