package priority

import (
	"fmt"
	"strings"
	"time"
)

// kind is what a step does.
type kind uint8

const (
	addWithOpts    kind = iota // AddWithOpts(opts, keys...)
	add                        // Add(key)
	addAfter                   // AddAfter(key, delay)
	addRateLimited             // AddRateLimited(key)
	get                        // GetWithPriority, started in a goroutine: it may block
	done                       // Done of a held item chosen by pick, or of key when none is held
	length                     // Len, observed
	forget                     // Forget(key)
	numRequeues                // NumRequeues(key), observed
	shuttingDown               // ShuttingDown, observed
	shutDown                   // ShutDown, or ShutDownWithDrain (drain) when no item is held
	sleep                      // time passes on the bubble's clock
)

// step is one operation of a sequence. It is plain data, so that a sequence can be shrunk: the
// item a done step ends is resolved when the step runs, from the items the test then holds.
type step struct {
	kind        kind
	keys        []string      // the items of addWithOpts; keys[0] is the item of the others
	delay       time.Duration // After of addWithOpts, the delay of addAfter, the time a sleep lets pass
	rateLimited bool          // RateLimited of addWithOpts
	priority    *int          // Priority of addWithOpts
	pick        int           // which held item a done step ends, modulo how many are held
	drain       bool          // a shutDown step calls ShutDownWithDrain if no item is held
}

// String writes the step as the call it makes.
func (s step) String() string {
	key := ""
	if len(s.keys) > 0 {
		key = s.keys[0]
	}
	switch s.kind {
	case addWithOpts:
		var opts []string
		if s.delay != 0 {
			opts = append(opts, fmt.Sprintf("After: %v", s.delay))
		}
		if s.rateLimited {
			opts = append(opts, "RateLimited: true")
		}
		if s.priority != nil {
			opts = append(opts, fmt.Sprintf("Priority: %d", *s.priority))
		}
		return fmt.Sprintf("AddWithOpts({%s}, %s)", strings.Join(opts, ", "), strings.Join(s.keys, ", "))
	case add:
		return fmt.Sprintf("Add(%s)", key)
	case addAfter:
		return fmt.Sprintf("AddAfter(%s, %v)", key, s.delay)
	case addRateLimited:
		return fmt.Sprintf("AddRateLimited(%s)", key)
	case get:
		return "go GetWithPriority()"
	case done:
		return fmt.Sprintf("Done(held item #%d, or %s)", s.pick, key)
	case length:
		return "Len()"
	case forget:
		return fmt.Sprintf("Forget(%s)", key)
	case numRequeues:
		return fmt.Sprintf("NumRequeues(%s)", key)
	case shuttingDown:
		return "ShuttingDown()"
	case shutDown:
		if s.drain {
			return "ShutDownWithDrain() if nothing is held, else ShutDown()"
		}
		return "ShutDown()"
	case sleep:
		return fmt.Sprintf("time.Sleep(%v)", s.delay)
	}
	return fmt.Sprintf("step(%d)", s.kind)
}
