// Package mutant switches on deliberate bugs, one at a time, so that the test suites can show
// they catch them. Built normally, Active always returns false and the compiler removes the
// code it guards; built with the tag mutants, it returns true for the bug named by the
// environment variable ACTORQUEUE_MUTANT.
package mutant

// Bug names a deliberate bug.
type Bug string

// The bugs the suites must catch.
const (
	NoDedup       Bug = "no-dedup"       // an item added twice while waiting is queued twice
	LostReAdd     Bug = "lost-readd"     // an item added while processing is not processed again
	EarlyDrain    Bug = "early-drain"    // ShutDownWithDrain returns without waiting for processing
	EarlyDelay    Bug = "early-delay"    // AddAfter fires at half its delay
	DoubleRequeue Bug = "double-requeue" // Done of an item added again queues it twice
	Uncapped      Bug = "uncapped"       // the exponential limiter ignores its maximum delay
	Unnudged      Bug = "unnudged"       // a getter that empties ready leaves the owner asleep
)

// Bugs lists every deliberate bug.
var Bugs = []Bug{NoDedup, LostReAdd, EarlyDrain, EarlyDelay, DoubleRequeue, Uncapped, Unnudged}
