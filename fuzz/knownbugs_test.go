package fuzz

import (
	"os"
	"testing"
)

// The tests in this file show library bugs the fuzz targets found that are not fixed yet.
// They fail until the bugs are fixed, so they run only when ACTORQUEUE_KNOWN_BUGS is set:
//
//	ACTORQUEUE_KNOWN_BUGS=1 go test -race -run Known ./fuzz/
//
// By default the targets steer around them, each where its test says, and the seeds named
// known-bug-* pass. Once a bug is fixed, move its test to bugs_test.go without the call to
// knownBug, drop the steering and rename the seed.
//
// There are none at present. The last three, found by FuzzQueue, FuzzPriorityQueue and
// FuzzPriorityGroups, are fixed (3583fd7, bd18678, 8d41a07); the root package's
// TestSnapshotAfterShutDown and TestPriorityQueueWaitingItemsStayWaitingDuringTheDrain, this
// package's TestGroupedPriorityQueueOrdersExtremePriorities, and the seeds
// oldest-in-flight-after-shutdown, drain-leaves-waiting-items-waiting and extreme-priorities,
// keep them fixed.

// showKnownBugs is set by ACTORQUEUE_KNOWN_BUGS: the tests below run, and the fuzz targets no
// longer steer around the bugs.
var showKnownBugs = os.Getenv("ACTORQUEUE_KNOWN_BUGS") != ""

// knownBug skips t unless ACTORQUEUE_KNOWN_BUGS is set.
func knownBug(t *testing.T) {
	if !showKnownBugs {
		t.Skip("a known library bug; set ACTORQUEUE_KNOWN_BUGS=1 to run")
	}
}
