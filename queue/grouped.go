package queue

// Grouped is a [Storage] fair between groups of items: each item belongs to the group its
// group function names, each group keeps its items first in, first out, and Pop serves the
// groups in turn, round robin. A group whose first item arrives joins the round at its end, and
// a group served goes back to the end if it has items left, so an item waits behind at most one
// item of each other group that was in the round before its own group's turn came.
//
// Its limit ([GroupLimit]) counts an item out from Pop to [Grouped.Finished], which [State]
// calls. Held items count in Len; [Grouped.Eligible] says whether Pop has an item to give.
//
// The group function is called once per item that enters the storage from outside, before the
// storage changes: if it panics, the storage is as it was. An item that goes back into storage
// after its processing keeps the group it had. Grouped is not safe for concurrent use.
type Grouped[T comparable] struct {
	group  func(T) string
	limit  GroupLimit[T, *bucket[T]]
	n      int                   // items held in every group
	groups map[string]*bucket[T] // groups with items stored or out
	round  FIFO[*bucket[T]]      // groups with an item Pop may give, in turn order
}

// bucket is one group: its stored items, oldest first.
type bucket[T comparable] struct {
	name    string
	items   FIFO[T]
	inRound bool
	aside   bool // held at its group's limit (see GroupLimit)
}

// NewGrouped returns an empty storage whose groups are named by group, with at most limit items
// of one group out at once (0: no limit). It panics if group is nil or limit is negative.
func NewGrouped[T comparable](group func(T) string, limit int) *Grouped[T] {
	return &Grouped[T]{
		group:  group,
		limit:  NewGroupLimit[T, *bucket[T]](group, limit),
		groups: make(map[string]*bucket[T]),
	}
}

// Touch does nothing: within its group, an item keeps its place when it is added again.
func (g *Grouped[T]) Touch(T) {}

// Push stores item at the back of its group. An item that is out (added again during its
// processing) goes back into the group it had; any other item's group is asked of the group
// function, first.
func (g *Grouped[T]) Push(item T) {
	name, out := g.limit.GroupOf(item)
	if !out {
		name = g.group(item) // may panic: nothing has changed yet
	}
	b := g.groups[name]
	if b == nil {
		b = &bucket[T]{name: name}
		g.groups[name] = b
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
	g.limit.Start(item, b.name)
	g.enter(b)
	return item
}

// Finished ends item's time out, which may let its group back into the round. It does nothing
// for an item that is not out.
func (g *Grouped[T]) Finished(item T) {
	name, rejoin, ok := g.limit.Done(item)
	if !ok {
		return
	}
	g.rejoin(rejoin)
	if b := g.groups[name]; g.limit.Out(name) == 0 && b.items.Len() == 0 {
		delete(g.groups, name)
	}
}

// Lift ends the limit for good, so that every stored item may be popped: a queue shutting down
// hands out all it holds. Groups held at their limit join the round in the order of their names.
func (g *Grouped[T]) Lift() { g.rejoin(g.limit.Lift()) }

// rejoin puts groups held at their limit back into the round, in order.
func (g *Grouped[T]) rejoin(held []*bucket[T]) {
	for _, b := range held {
		b.aside = false
		g.enter(b)
	}
}

// enter puts b at the end of the round if it has stored items and is neither in the round nor
// held; a group at its limit is held instead.
func (g *Grouped[T]) enter(b *bucket[T]) {
	if b.inRound || b.aside || b.items.Len() == 0 {
		return
	}
	if !g.limit.Admit(b.name, b) {
		b.aside = true
		return
	}
	b.inRound = true
	g.round.Push(b)
}
