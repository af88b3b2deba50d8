package queue

import (
	"slices"
	"strings"
)

// Grouped is a [Storage] fair between groups of items: each item belongs to the group its
// group function names, each group keeps its items first in, first out, and Pop serves the
// groups in turn, round robin. A group whose first item arrives joins the round at its end, and
// a group served goes back to the end if it has items left, so an item waits behind at most one
// item of each other group that was in the round before its own group's turn came.
//
// With a limit, at most that many items of one group are out at once: popped and not yet
// [Grouped.Finished]. A group at its limit leaves the round, its items held, and rejoins it at
// the end when one of its items finishes. Held items count in Len; [Grouped.Eligible] says
// whether Pop has an item to give. [State] tells the storage when an item finishes.
//
// The group function is called once per item that enters the storage from outside, before the
// storage changes: if it panics, the storage is as it was. An item that goes back into storage
// after its processing keeps the group it had. Grouped is not safe for concurrent use.
type Grouped[T comparable] struct {
	group  func(T) string
	limit  int  // most items of one group out at once; 0: no limit
	lifted bool // the limit no longer holds (see Lift)
	n      int  // items held in every group

	groups map[string]*bucket[T] // groups with items stored or out
	round  FIFO[*bucket[T]]      // groups with an item Pop may give, in turn order
	out    map[T]*bucket[T]      // items popped and not finished, with their group
}

// bucket is one group: its stored items, oldest first, and how many of its items are out.
type bucket[T comparable] struct {
	name    string
	items   FIFO[T]
	out     int
	inRound bool
}

// NewGrouped returns an empty storage whose groups are named by group, with at most limit items
// of one group out at once (0: no limit). It panics if group is nil or limit is negative.
func NewGrouped[T comparable](group func(T) string, limit int) *Grouped[T] {
	if group == nil {
		panic("workqueue: a grouped queue needs a group function")
	}
	if limit < 0 {
		panic("workqueue: the limit of items of one group in processing must not be negative")
	}
	return &Grouped[T]{
		group:  group,
		limit:  limit,
		groups: make(map[string]*bucket[T]),
		out:    make(map[T]*bucket[T]),
	}
}

// Touch does nothing: within its group, an item keeps its place when it is added again.
func (g *Grouped[T]) Touch(T) {}

// Push stores item at the back of its group. An item that is out (added again during its
// processing) goes back into the group it had; any other item's group is asked of the group
// function, first.
func (g *Grouped[T]) Push(item T) {
	b := g.out[item]
	if b == nil {
		name := g.group(item) // may panic: nothing has changed yet
		if b = g.groups[name]; b == nil {
			b = &bucket[T]{name: name}
			g.groups[name] = b
		}
	}
	b.items.Push(item)
	g.n++
	g.enter(b)
}

// Len returns the number of stored items, held ones included.
func (g *Grouped[T]) Len() int { return g.n }

// Eligible reports whether Pop has an item to give: some group with stored items is below its
// limit.
func (g *Grouped[T]) Eligible() bool { return g.round.Len() > 0 }

// Pop removes and returns the first item of the group whose turn it is, and counts it out until
// Finished. It panics if no item is eligible.
func (g *Grouped[T]) Pop() T {
	if g.round.Len() == 0 {
		panic("workqueue: Pop from a grouped storage with no eligible item")
	}
	b := g.round.Pop()
	b.inRound = false
	item := b.items.Pop()
	g.n--
	b.out++
	g.out[item] = b
	g.enter(b)
	return item
}

// Finished ends item's time out, which may let its group back into the round. It does nothing
// for an item that is not out.
func (g *Grouped[T]) Finished(item T) {
	b, ok := g.out[item]
	if !ok {
		return
	}
	delete(g.out, item)
	b.out--
	g.enter(b)
	if b.out == 0 && b.items.Len() == 0 {
		delete(g.groups, b.name)
	}
}

// Lift ends the limit for good, so that every stored item may be popped: a queue shutting down
// hands out all it holds. Groups held at their limit join the round in the order of their names.
func (g *Grouped[T]) Lift() {
	if g.lifted {
		return
	}
	g.lifted = true
	var held []*bucket[T]
	for _, b := range g.groups {
		if !b.inRound && b.items.Len() > 0 {
			held = append(held, b)
		}
	}
	slices.SortFunc(held, func(a, b *bucket[T]) int { return strings.Compare(a.name, b.name) })
	for _, b := range held {
		g.enter(b)
	}
}

// Out returns how many items of the group named name are out.
func (g *Grouped[T]) Out(name string) int {
	if b := g.groups[name]; b != nil {
		return b.out
	}
	return 0
}

// enter puts b at the end of the round if it has stored items, is below its limit, and is not
// in the round already.
func (g *Grouped[T]) enter(b *bucket[T]) {
	if b.inRound || b.items.Len() == 0 || !g.lifted && g.limit > 0 && b.out >= g.limit {
		return
	}
	b.inRound = true
	g.round.Push(b)
}
