package equivalence

import (
	"os"
	"strings"
	"testing"
)

// showVariable runs the tests below, which fail today: they show where actorqueue differs from
// client-go in a way its documentation does not list. The differential suite steers around
// both (see steering in side_test.go), so that it stays green while they are decided.
const showVariable = "ACTORQUEUE_SHOW_DIVERGENCES"

// TestDivergenceSecondShutDownOfDelayingQueue: client-go's delaying queue (and so its
// rate-limiting queue) runs its ShutDown only once, so a ShutDownWithDrain that starts after a
// ShutDown is not released by a second ShutDown: it waits for processing to end. actorqueue's
// second ShutDown releases it. Plain queues agree.
func TestDivergenceSecondShutDownOfDelayingQueue(t *testing.T) {
	expectEquivalent(t, []step{
		{kind: add, key: "a"}, {kind: get}, {kind: shutDown}, {kind: shutDownWithDrain}, {kind: shutDown},
	})
}

// TestDivergenceTwoDrains: with two ShutDownWithDrain waiting, the Done that ends processing
// releases one of them in client-go (its Done signals one waiter of the condition variable) and
// the other keeps waiting, forever in a delaying queue that was shut down before. actorqueue
// releases both.
func TestDivergenceTwoDrains(t *testing.T) {
	expectEquivalent(t, []step{
		{kind: add, key: "a"}, {kind: get}, {kind: shutDownWithDrain}, {kind: shutDownWithDrain}, {kind: done},
	})
}

// expectEquivalent runs steps on every variant, unsteered, and fails where the queues
// disagree.
func expectEquivalent(t *testing.T, steps []step) {
	if os.Getenv(showVariable) == "" {
		t.Skipf("a known divergence from client-go, kept out of CI until it is decided; %s=1 runs it", showVariable)
	}
	for _, v := range variants() {
		if o := runInBubble(t, v, steering{maxDrains: 2}, steps); o.diverged {
			t.Errorf("%s: %s\n%s", v.name, o.reason, strings.Join(o.transcript, "\n"))
		}
	}
}
