package workqueue

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
