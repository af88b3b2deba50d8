package actor

import "github.com/actorqueue/workqueue/internal/keys"

// checkAdd checks item before an add: it panics, in the caller's goroutine, if item cannot be a
// map key, or if the queue's group function panics for it (see Config.Group). Calling the group
// function here, where the caller is, lets a grouped queue run it again in the owner without
// making every caller wait for the outcome: a function that returned for an item here returns
// for it there too, unless it is not a function of the item alone (see ownGroup).
func (q *Queue[T]) checkAdd(method string, item T) {
	q.check(method, item)
	if q.group != nil {
		q.group(item)
	}
}

// ownGroup returns group as the owner calls it, and as the cores need it, never panicking: a
// panic, which the caller's check did not meet, is kept for the next caller that waits, and
// the item goes into the group named by the empty string rather than be lost.
func (q *Queue[T]) ownGroup(group func(T) string) func(T) string {
	return func(item T) (name string) {
		defer func() {
			if p := recover(); p != nil {
				q.keep(p)
				name = ""
			}
		}()
		return group(item)
	}
}

// check panics in the caller's goroutine if item cannot be a map key.
func (q *Queue[T]) check(method string, item T) {
	if q.checkKeys {
		keys.Check(method, item)
	}
}
