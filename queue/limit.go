package queue

import (
	"maps"
	"slices"
)

// GroupLimit is the rule of MaxPerGroup, which both cores' grouped storages keep ([Grouped] and
// package queue/priority's): at most limit items of one group out at once, handed out and not
// yet done. A group at its limit leaves the rounds it is in, held, and rejoins them at their
// ends when one of its items is done. B is a group's place in one round, which the storage
// holds here while its group is at the limit. Create it with [NewGroupLimit]; it is not safe
// for concurrent use.
type GroupLimit[T comparable, B comparable] struct {
	limit  int            // 0: no limit
	lifted bool           // the limit no longer holds (see Lift)
	out    map[string]int // items of each group out
	outOf  map[T]string   // the group of each item out
	held   map[string][]B // the places of each group held at its limit, in the order held
}

// NewGroupLimit returns a limit of limit items of one group out at once (0: no limit), for a
// storage whose groups group names: it panics if group is nil or limit negative.
func NewGroupLimit[T comparable, B comparable](group func(T) string, limit int) GroupLimit[T, B] {
	if group == nil {
		panic("workqueue: a grouped queue needs a group function")
	}
	if limit < 0 {
		panic("workqueue: the limit of items of one group in processing must not be negative")
	}
	return GroupLimit[T, B]{limit: limit, out: make(map[string]int), outOf: make(map[T]string),
		held: make(map[string][]B)}
}

// Reached reports whether the group name has limit items out: its items must wait.
func (l *GroupLimit[T, B]) Reached(name string) bool {
	return l.limit > 0 && !l.lifted && l.out[name] >= l.limit
}

// Admit reports whether the place b of the group name may join its round; if the group is at
// its limit, it holds b instead, until the group falls below it (see Done). The storage
// offers each place once until it rejoins.
func (l *GroupLimit[T, B]) Admit(name string, b B) bool {
	if !l.Reached(name) {
		return true
	}
	l.held[name] = append(l.held[name], b)
	return false
}

// Start counts item, of the group name, out.
func (l *GroupLimit[T, B]) Start(item T, name string) {
	l.out[name]++
	l.outOf[item] = name
}

// GroupOf returns the group of item while it is out.
func (l *GroupLimit[T, B]) GroupOf(item T) (name string, out bool) {
	name, out = l.outOf[item]
	return name, out
}

// Done ends the time out of item, and returns its group, and the places of its group that were
// held, to rejoin their rounds in this order, once the group is below its limit. ok is false
// for an item that is not out.
func (l *GroupLimit[T, B]) Done(item T) (name string, rejoin []B, ok bool) {
	if name, ok = l.outOf[item]; !ok {
		return "", nil, false
	}
	delete(l.outOf, item)
	if l.out[name]--; l.out[name] == 0 {
		delete(l.out, name)
	}
	if l.Reached(name) {
		return name, nil, true
	}
	rejoin = l.held[name]
	delete(l.held, name)
	return name, rejoin, true
}

// Lift ends the limit for good, so that every item may be handed out (a queue shutting down
// hands out all it holds), and returns every place held, to rejoin its round, in the order of
// the groups' names.
func (l *GroupLimit[T, B]) Lift() (rejoin []B) {
	l.lifted = true
	for _, name := range slices.Sorted(maps.Keys(l.held)) {
		rejoin = append(rejoin, l.held[name]...)
	}
	clear(l.held)
	return rejoin
}

// Out returns how many items of the group named name are out.
func (l *GroupLimit[T, B]) Out(name string) int { return l.out[name] }
