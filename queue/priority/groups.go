package priority

import (
	"cmp"
	"slices"

	"github.com/actorqueue/workqueue/queue"
)

// fair holds the ready items of a grouped state (see NewGrouped): within each priority, a round
// of groups with the turns of [queue.Grouped], each group keeping its items at that priority in
// order; the best item is the first of the group whose turn it is at the highest priority that
// has one. The limit ([queue.GroupLimit]) is per group, across priorities: a group that reached
// it at another priority is set aside as its turn comes, its items still ready and counted.
type fair[T comparable] struct {
	name   func(T) string
	limit  queue.GroupLimit[T, *bucket[T]]
	levels map[int]*level[T] // by priority
	active []int             // priorities whose round has groups, highest first
	n      int               // ready items, set-aside ones included
}

// level is one priority: its groups, and the round of those with items to hand out.
type level[T comparable] struct {
	priority int
	buckets  map[string]*bucket[T]
	round    queue.FIFO[*bucket[T]]
	active   bool // among the active priorities: its round has groups, or pop is serving it
}

// bucket is one group's ready items at one priority, in order.
type bucket[T comparable] struct {
	level   *level[T]
	name    string
	items   entries[T]
	inRound bool // in its level's round
	aside   bool // set aside at its group's limit
}

// byOrder orders a group's ready items at one priority.
func byOrder[T comparable](a, b *entry[T]) bool { return a.order < b.order }

// NewGrouped returns an empty priority queue state whose items belong to the groups group
// names, fair between groups within each priority, with at most limit items of one group handed
// out at once (0: no limit). It panics if group is nil or limit is negative.
func NewGrouped[T comparable](group func(T) string, limit int) *State[T] {
	s := New[T]()
	s.fair = &fair[T]{
		name:   group,
		limit:  queue.NewGroupLimit[T, *bucket[T]](group, limit),
		levels: make(map[int]*level[T]),
	}
	return s
}

// groupOf returns the group of item, which is not yet an entry: the group it has while handed
// out, or the one the group function names, which may panic.
func (f *fair[T]) groupOf(item T) string {
	if name, out := f.limit.GroupOf(item); out {
		return name
	}
	return f.name(item)
}

// push makes e ready, behind the ready items of its group at its priority.
func (f *fair[T]) push(e *entry[T]) {
	lv := f.levels[e.priority]
	if lv == nil {
		lv = &level[T]{priority: e.priority, buckets: make(map[string]*bucket[T])}
		f.levels[e.priority] = lv
	}
	b := lv.buckets[e.group]
	if b == nil {
		b = &bucket[T]{level: lv, name: e.group, items: entries[T]{less: byOrder[T]}}
		lv.buckets[e.group] = b
	}
	b.items.push(e)
	f.n++
	f.enter(b)
}

// remove takes the ready entry e out, for a change of its priority.
func (f *fair[T]) remove(e *entry[T]) {
	b := f.levels[e.priority].buckets[e.group]
	b.items.remove(e)
	f.n--
	f.letGo(b)
}

// enter puts b at the end of its level's round, unless it is there, set aside, or empty; a
// group at its limit is set aside instead.
func (f *fair[T]) enter(b *bucket[T]) {
	switch {
	case b.inRound || b.aside || b.items.len() == 0:
		return
	case !f.limit.Admit(b.name, b):
		b.aside = true
		return
	}
	b.inRound = true
	if !b.level.active {
		b.level.active = true
		f.activate(b.level.priority)
	}
	b.level.round.Push(b)
}

// activate adds priority to the active ones, which it is not among.
func (f *fair[T]) activate(priority int) {
	i, _ := slices.BinarySearchFunc(f.active, priority, func(a, p int) int { return cmp.Compare(p, a) }) // highest first
	f.active = slices.Insert(f.active, i, priority)
}

// letGo forgets b, and its level, once they hold nothing.
func (f *fair[T]) letGo(b *bucket[T]) {
	if b.items.len() > 0 || b.inRound || b.aside {
		return
	}
	lv := b.level
	delete(lv.buckets, b.name)
	if len(lv.buckets) == 0 && !lv.active {
		delete(f.levels, lv.priority)
	}
}

// pop removes and returns the best item that may be handed out, and counts it out; ok is false
// when there is none.
func (f *fair[T]) pop() (e *entry[T], ok bool) {
	for len(f.active) > 0 {
		lv := f.levels[f.active[0]]
		for lv.round.Len() > 0 {
			b := lv.round.Pop()
			b.inRound = false
			if b.items.len() == 0 { // its items moved to other priorities
				f.letGo(b)
				continue
			}
			if f.limit.Reached(b.name) { // by items of its group handed out at other priorities
				f.enter(b) // sets it aside
				continue
			}
			e = b.items.top()
			b.items.remove(e)
			f.n--
			f.limit.Start(e.item, b.name)
			f.enter(b)
			f.letGo(b)
			if lv.round.Len() == 0 {
				f.deactivate(lv)
			}
			return e, true
		}
		f.deactivate(lv)
	}
	return nil, false
}

// deactivate takes lv, the highest active priority, whose round is empty, out of the active
// ones, and forgets it once it has no groups.
func (f *fair[T]) deactivate(lv *level[T]) {
	f.active = f.active[1:]
	lv.active = false
	if len(lv.buckets) == 0 {
		delete(f.levels, lv.priority)
	}
}

// done records that item, handed out, is done: its group may rejoin the rounds it was set
// aside from.
func (f *fair[T]) done(item T) {
	_, back, _ := f.limit.Done(item)
	for _, b := range back {
		b.aside = false
		f.enter(b)
		f.letGo(b)
	}
}
