package queue

import "time"

// Snapshot is a queue's counts at one instant, as a core reports them. The root package's
// Snapshot has the same fields, so a Snapshot converts to it.
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
	// processing; zero when none is.
	OldestInFlight time.Duration
	// ShuttingDown reports whether shutdown has begun.
	ShuttingDown bool
}
