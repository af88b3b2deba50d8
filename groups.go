package workqueue

import (
	"time"

	"github.com/actorqueue/workqueue/delay"
)

// Debounce holds each added item back until its adds stop: the item becomes ready once Window
// has passed without another add of it, or once MaxWait has passed since the first add of the
// burst, whichever comes first; every add while it waits starts its Window again. An object
// that changes ten times in a second is then processed once, after the burst. The zero value
// (a zero Window) debounces nothing. See the package documentation, "Debounce", for how it
// meets delays, priorities, groups, processing, shutdown and the metrics.
type Debounce struct {
	// Window is how long an item must go without an add before it becomes ready. Zero turns
	// debouncing off; it must not be negative.
	Window time.Duration
	// MaxWait bounds how long an item waits from the first add of a burst, however often it is
	// added again. Zero means no bound: an item added more often than every Window is then never
	// handed out, so set one. It must not be negative, nor below Window, and needs Window.
	MaxWait time.Duration
}

// rule returns d as package delay's rule.
func (d Debounce) rule() delay.Debounce { return delay.Debounce{Window: d.Window, MaxWait: d.MaxWait} }

// checkDebounce panics, with a message naming constructor, on a Debounce that means nothing
// sensible: a negative Window or MaxWait, a MaxWait without a Window, or a MaxWait below the
// Window (the item would never wait a whole window).
func checkDebounce(constructor string, d Debounce) {
	switch {
	case d.Window < 0:
		panic("workqueue: " + constructor + ": Debounce.Window is negative")
	case d.MaxWait < 0:
		panic("workqueue: " + constructor + ": Debounce.MaxWait is negative")
	case d.MaxWait > 0 && d.Window == 0:
		panic("workqueue: " + constructor + ": Debounce.MaxWait is set without a Window")
	case d.MaxWait > 0 && d.MaxWait < d.Window:
		panic("workqueue: " + constructor + ": Debounce.MaxWait is below Debounce.Window")
	}
}

// checkStorage panics, with a message naming constructor, on invalid group options (see
// checkGroups) or a custom storage custom set with a group function: a grouped queue keeps its
// own storage.
func checkStorage[T comparable](constructor string, group func(T) string, maxPerGroup int, custom Queue[T]) {
	checkGroups(constructor, group, maxPerGroup)
	if group != nil && custom != nil {
		panic("workqueue: " + constructor + ": Group and Queue are both set: a grouped queue keeps its own storage")
	}
}

// checkGroups panics, with a message naming constructor, if maxPerGroup is negative, or set
// without a group function.
func checkGroups[T comparable](constructor string, group func(T) string, maxPerGroup int) {
	switch {
	case maxPerGroup < 0:
		panic("workqueue: " + constructor + ": MaxPerGroup is negative")
	case maxPerGroup > 0 && group == nil:
		panic("workqueue: " + constructor + ": MaxPerGroup is set without a Group function")
	}
}

// checkRetries panics, with a message naming constructor, if maxRetries is negative, or if a
// give-up function is set without a maximum, so that it would never be called.
func checkRetries[T comparable](constructor string, maxRetries int, giveUp func(T, int)) {
	switch {
	case maxRetries < 0:
		panic("workqueue: " + constructor + ": MaxRetries is negative")
	case maxRetries == 0 && giveUp != nil:
		panic("workqueue: " + constructor + ": GiveUp is set without MaxRetries, so it would never be called")
	}
}
