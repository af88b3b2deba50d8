package actor

import "github.com/actorqueue/workqueue/internal/keys"

// checkAdd panics in the caller if item cannot be a map key, or if the group function panics
// for it. Run here, the group function can run again in the owner without callers waiting: a
// function of the item alone that returned here returns there too (else see ownGroup).
func (q *Queue[T]) checkAdd(method string, item T) {
	q.check(method, item)
	if q.group != nil {
		q.group(item)
	}
}

// ownGroup returns group as the owner and the cores call it, never panicking: a panic the
// caller's check did not meet is kept for the next caller that waits, and the item goes into
// the group named "" rather than be lost.
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

// check panics in the caller if item cannot be a map key.
func (q *Queue[T]) check(method string, item T) {
	if q.checkKeys {
		keys.Check(method, item)
	}
}
