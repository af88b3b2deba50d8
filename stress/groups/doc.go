// Package groups is the stress suite of issue 28's options, Group, MaxPerGroup, MaxRetries and
// GiveUp, on every kind of queue that has them (FIFO, rate-limiting, priority): many producers
// and workers in testing/synctest bubbles, under the race detector, checking as they go that no
// item is processed twice at once, that no group has more than MaxPerGroup items in
// processing (counted by the workers), that every add is followed by a processing of its item,
// that a new group's item waits at most one turn of each group ahead of it (one worker, so that
// the order is the queue's), that a FIFO queue shutting down hands out the items its limit held,
// and that an item is given up on exactly once per cycle of failures, and never comes back
// after. Failures start with a tag in brackets, such as [group-limit], which the mutation
// table of stress/README.md quotes.
package groups
