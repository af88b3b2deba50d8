package linearizability

import (
	"fmt"
	"strings"

	"github.com/anishathalye/porcupine"
)

// items are the items histories use, one letter each: few, so that operations collide.
const items = "abc"

// op names an operation of the queue.
type op uint8

const (
	opAdd            op = iota // Add(item)
	opAddNow                   // AddAfter(item, 0): adds at once
	opAddLater                 // AddAfter(item, an hour): never due within a history
	opAddRateLimited           // AddRateLimited(item), with a limiter that always answers 0
	opForget                   // Forget(item)
	opNumRequeues              // NumRequeues(item) = n
	opLen                      // Len() = n
	opShuttingDown             // ShuttingDown() = flag
	opGet                      // Get() = item, shutdown
	opDone                     // Done(item)
	opShutDown                 // ShutDown()
)

// input is what an operation was called with.
type input struct {
	op   op
	item byte // one of items, for the operations that take one
}

// output is what an operation returned; each operation sets the fields it returns.
type output struct {
	item     byte // Get's item
	shutdown bool // Get's shutdown
	n        int  // Len, NumRequeues
	flag     bool // ShuttingDown
}

// state is the queue as the model sees it: a value, so that porcupine compares states with ==.
type state struct {
	waiting    string // the items waiting to be handed out, first first
	dirty      string // the items that need processing: waiting, or added again while processing
	processing string // the items handed out whose Done has not come
	shut       bool
	requeues   [len(items)]int // NumRequeues of each item
}

// has reports whether the item is in set, a string of items.
func has(set string, item byte) bool { return strings.IndexByte(set, item) >= 0 }

// without returns set without item.
func without(set string, item byte) string { return strings.Replace(set, string(item), "", 1) }

// add is Add, as client-go defines it: nothing after shutdown; an item that already needs
// processing is not queued again; an item being processed waits for its Done.
func (s state) add(item byte) state {
	if s.shut || has(s.dirty, item) {
		return s
	}
	s.dirty += string(item)
	if !has(s.processing, item) {
		s.waiting += string(item)
	}
	return s
}

// step applies one operation to s and reports whether the queue could have returned out.
func step(s state, in input, out output) (bool, state) {
	i := strings.IndexByte(items, in.item)
	switch in.op {
	case opAdd, opAddNow:
		return true, s.add(in.item)
	case opAddLater:
		return true, s
	case opAddRateLimited:
		s.requeues[i]++ // counted even after shutdown, as client-go does
		return true, s.add(in.item)
	case opForget:
		s.requeues[i] = 0
		return true, s
	case opNumRequeues:
		return out.n == s.requeues[i], s
	case opLen:
		return out.n == len(s.waiting), s
	case opShuttingDown:
		return out.flag == s.shut, s
	case opShutDown:
		s.shut = true
		return true, s
	case opGet:
		if s.waiting == "" {
			// Get waits while the queue is empty and running: it can only return now if shut.
			return s.shut && out.shutdown, s
		}
		item := s.waiting[0]
		s.waiting = s.waiting[1:]
		s.dirty = without(s.dirty, item)
		s.processing += string(item)
		return !out.shutdown && out.item == item, s
	case opDone:
		// Done of an item not being processed does nothing: actorqueue's documented difference.
		if has(s.processing, in.item) {
			s.processing = without(s.processing, in.item)
			if has(s.dirty, in.item) {
				s.waiting += string(in.item)
			}
		}
		return true, s
	}
	panic(fmt.Sprintf("step: operation %d", in.op))
}

// model is the sequential specification porcupine checks histories against.
var model = porcupine.Model{
	Init: func() any { return state{} },
	Step: func(s, in, out any) (bool, any) { return step(s.(state), in.(input), out.(output)) },
	DescribeOperation: func(in, out any) string {
		return describe(in.(input), out.(output))
	},
	DescribeState: func(s any) string {
		st := s.(state)
		return fmt.Sprintf("waiting %q, dirty %q, processing %q, shut %v, requeues %v",
			st.waiting, st.dirty, st.processing, st.shut, st.requeues)
	},
}

// describe writes an operation as the call it was, with its result.
func describe(in input, out output) string {
	item := string(in.item)
	switch in.op {
	case opAdd:
		return "Add(" + item + ")"
	case opAddNow:
		return "AddAfter(" + item + ", 0)"
	case opAddLater:
		return "AddAfter(" + item + ", 1h)"
	case opAddRateLimited:
		return "AddRateLimited(" + item + ")"
	case opForget:
		return "Forget(" + item + ")"
	case opNumRequeues:
		return fmt.Sprintf("NumRequeues(%s) = %d", item, out.n)
	case opLen:
		return fmt.Sprintf("Len() = %d", out.n)
	case opShuttingDown:
		return fmt.Sprintf("ShuttingDown() = %v", out.flag)
	case opGet:
		if out.shutdown {
			return "Get() = shutdown"
		}
		return fmt.Sprintf("Get() = %c", out.item)
	case opDone:
		return "Done(" + item + ")"
	case opShutDown:
		return "ShutDown()"
	}
	return fmt.Sprintf("operation %d", in.op)
}
