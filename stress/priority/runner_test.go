package priority

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// outcome is what a run of a sequence showed.
type outcome struct {
	transcript []string // one line per step run, with what both queues observed
	diverged   bool
	reason     string // on divergence: what differed, as "[priority] <observation> differs"
}

// runInBubble runs steps on both queues of v in a new synctest bubble.
func runInBubble(t *testing.T, v variant, steps []step) (o outcome) {
	synctest.Test(t, func(*testing.T) { o = run(v, steps) })
	return o
}

// run applies steps, then an epilogue that observes everything and shuts both queues down, to
// controller-runtime's queue and to actorqueue's, in the same order, and stops at the first
// step at which they disagree. It must run inside a bubble: a sleep step lets the bubble's clock
// pass, and after every step synctest.Wait lets each queue finish what it can (hand items to
// the Gets that wait, move the items that fell due), so that a Get that blocks in one queue and
// returns in the other shows.
func run(v variant, steps []step) outcome {
	cq, aq, metrics := v.build()
	sides := [2]*side{newSide(cq, metrics[0]), newSide(aq, metrics[1])} // controller-runtime first
	defer func() {
		for _, sd := range sides {
			sd.shutDown(false)
		}
		synctest.Wait()
	}()
	var o outcome
	for i, s := range append(slices.Clip(steps), epilogue()...) {
		if s.kind == sleep {
			time.Sleep(s.delay)
		}
		item := sides[0].pick(s) // the sides hold the same items, or the run has stopped
		var observed, tallies [2]string
		var returned [2][]string
		for j, sd := range sides {
			observed[j] = sd.apply(s, item)
		}
		synctest.Wait()
		for j, sd := range sides {
			returned[j], tallies[j] = sd.settle(), sd.tally()
		}
		label := fmt.Sprint(i + 1)
		if i >= len(steps) {
			label = "end"
		}
		line, reason := compare(label, s, item, observed, returned, tallies)
		o.transcript = append(o.transcript, line)
		if reason != "" {
			o.diverged, o.reason = true, reason
			return o
		}
	}
	if sides[0].pending > 0 {
		o.diverged, o.reason = true, "[priority] Gets still wait after ShutDown"
	}
	return o
}

// epilogue observes everything, then shuts the queues down, which releases every Get that
// waits.
func epilogue() []step {
	end := []step{{kind: length}, {kind: shuttingDown}}
	for _, k := range keys {
		end = append(end, step{kind: numRequeues, keys: []string{k}})
	}
	return append(end, step{kind: shutDown})
}

// compare writes the transcript line of the step labelled label and, if the queues disagreed,
// the reason.
func compare(label string, s step, item string, observed [2]string, returned [2][]string, tallies [2]string) (line, reason string) {
	call := s.String()
	if s.kind == done {
		call = fmt.Sprintf("Done(%s)", item)
	}
	line = fmt.Sprintf("%3s  %s", label, call)
	switch {
	case observed[0] != observed[1]:
		method, _, _ := strings.Cut(strings.TrimPrefix(call, "go "), "(")
		return line + fmt.Sprintf("  controller-runtime: %q, actorqueue: %q", observed[0], observed[1]),
			fmt.Sprintf("[priority] %s differs", method)
	case !slices.Equal(returned[0], returned[1]):
		return line + fmt.Sprintf("  then returned: controller-runtime %v, actorqueue %v", returned[0], returned[1]),
			"[priority] the Gets that returned differ"
	case tallies[0] != tallies[1]:
		return line + fmt.Sprintf("\n       metrics: controller-runtime %s\n                actorqueue         %s", tallies[0], tallies[1]),
			"[priority] the metrics differ"
	}
	if observed[0] != "" {
		line += " = " + observed[0]
	}
	if len(returned[0]) > 0 {
		line += fmt.Sprintf("  then returned: %v", returned[0])
	}
	return line, ""
}
