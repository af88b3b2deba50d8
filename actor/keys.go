package actor

import "github.com/actorqueue/workqueue/internal/keys"

// checkAdd panics in the caller if item cannot be a map key, or if the group function panics
// for it: a function of the item alone that returned here returns in the owner too.
func (q *Queue[T]) checkAdd(method string, item T) {
	q.check(method, item)
	if q.group != nil {
		q.group(item)
	}
}

// ownGroup returns group as the owner calls it, never panicking: a panic the caller's check did
// not meet is kept, and the item goes into the group named "" rather than be lost.
func (q *Queue[T]) ownGroup(group func(T) string) func(T) string {
	return func(item T) (name string) {
		q.guard(func() { name = group(item) })
		return name
	}
}

// check panics in the caller if item cannot be a map key.
func (q *Queue[T]) check(method string, item T) {
	if q.checkKeys {
		keys.Check(method, item)
	}
}
