package equivalence

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// stray is the item a done step ends when the test holds none: no step adds it, so Done of it
// is a no-op in both libraries.
const stray = "z"

// outcome is what a run of a sequence showed.
type outcome struct {
	transcript []string // one line per step run, with what both queues observed
	diverged   bool
	reason     string // on divergence: what differed, as "[equivalence] <observation> differs"
}

// runInBubble runs steps on both queues of v in a new synctest bubble, steered by st.
func runInBubble(t *testing.T, v variant, st steering, steps []step) (o outcome) {
	synctest.Test(t, func(*testing.T) { o = run(v, st, steps) })
	return o
}

// run applies steps, then an epilogue that observes everything and shuts both queues down,
// to client-go's queue and to actorqueue's, in the same order, and stops at the first step at
// which they disagree. It must run inside a bubble: a sleep step lets the bubble's clock pass,
// and after every step synctest.Wait lets each queue finish what it can, so that a call that
// blocks in one queue and returns in the other shows.
func run(v variant, st steering, steps []step) outcome {
	cq, aq := v.build()
	sides := [2]*side{newSide(cq, st), newSide(aq, st)} // client-go first, always
	defer func() {
		for _, sd := range sides {
			sd.finish()
		}
		synctest.Wait()
	}()
	var o outcome
	for i, s := range append(slices.Clip(steps), epilogue(v.level)...) {
		item := sides[0].pick(s.pick) // the sides hold the same items, or the run has stopped
		if s.kind == sleep {
			time.Sleep(s.delay)
		}
		var observed [2]string
		for j, sd := range sides {
			observed[j] = sd.apply(s, item)
		}
		synctest.Wait()
		var returned [2][]string
		for j, sd := range sides {
			returned[j] = sd.settle()
		}
		label := fmt.Sprint(i + 1)
		if i >= len(steps) {
			label = "end"
		}
		line, reason := compare(label, s, item, observed, returned)
		o.transcript = append(o.transcript, line)
		if reason != "" {
			o.diverged, o.reason = true, reason
			return o
		}
	}
	return o
}

// epilogue observes everything a queue of level l can say, then shuts it down, which releases
// every Get and ShutDownWithDrain still waiting.
func epilogue(l level) []step {
	end := []step{{kind: length}, {kind: shuttingDown}}
	if l >= rateLimiting {
		for _, k := range keys {
			end = append(end, step{kind: numRequeues, key: k})
		}
	}
	return append(end, step{kind: shutDown})
}

// compare writes the transcript line of the step labelled label and, if the queues disagreed,
// the reason.
func compare(label string, s step, item string, observed [2]string, returned [2][]string) (line, reason string) {
	call := s.String()
	switch s.kind {
	case done:
		call = fmt.Sprintf("Done(%s)", item)
	case retry:
		call = fmt.Sprintf("AddRateLimited(%[1]s), Done(%[1]s)", item)
	}
	line = fmt.Sprintf("%3s  %s", label, call)
	switch {
	case observed[0] != observed[1]:
		method, _, _ := strings.Cut(strings.TrimPrefix(call, "go "), "(")
		return line + fmt.Sprintf("  client-go: %q, actorqueue: %q", observed[0], observed[1]),
			fmt.Sprintf("[equivalence] %s differs", method)
	case !slices.Equal(returned[0], returned[1]):
		return line + fmt.Sprintf("  then returned: client-go %v, actorqueue %v", returned[0], returned[1]),
			"[equivalence] the calls that returned differ"
	}
	if observed[0] != "" {
		line += " = " + observed[0]
	}
	if len(returned[0]) > 0 {
		line += fmt.Sprintf("  then returned: %v", returned[0])
	}
	return line, ""
}
