package actor

import "time"

// Snapshot is a queue's state at one instant, for debugging and dashboards. Taking one does
// not stop the queue: it is one command among the others.
type Snapshot struct {
	// Queued counts the items waiting to be handed out: what Len returns.
	Queued int
	// Processing counts the items handed out whose Done has not been called.
	Processing int
	// Dirty counts the items being processed that were added again since: they are queued again
	// when their Done is called.
	Dirty int
	// Delayed counts the items added with a delay that has not passed yet.
	Delayed int
	// OldestInFlight is how long the item processed for the longest time has been in
	// processing; zero when none is. It is measured from when the owner put the item on its way
	// to the workers, which is when a waiting worker takes it; when every worker was busy, the
	// time it then waited for one is counted too, so a stuck worker never looks younger than it
	// is.
	OldestInFlight time.Duration
	// ShuttingDown reports whether shutdown has begun.
	ShuttingDown bool
}
