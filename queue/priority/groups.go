package priority

import (
	"cmp"
	"slices"

	"github.com/actorqueue/workqueue/queue"
)

// fair holds the ready items of a grouped state (see NewGrouped): fair between groups within
// each priority, with at most limit items of one group handed out at once.
//
// Each priority has a round of groups, a FIFO of the groups with ready items at that
// priority, and each group at a priority keeps its items in order. The best item is the first
// item of the group at the front of the round of the highest priority that has one; that group
// then goes to the end of the round if it has items left. A group whose first ready item
// arrives joins the end of the round. So an item waits, within its priority, behind at most
// one item of each group ahead of its own in the round, however many items they hold.
//
// A group with as many items handed out as the limit leaves the rounds it is in as its turn
// comes (set aside, its items still ready and counted), and rejoins them at their ends when one
// of its items is done.
type fair[T comparable] struct {
	name   func(T) string
	limit  int               // most items of one group handed out at once; 0: no limit
	levels map[int]*level[T] // by priority
	active []int             // priorities whose round has groups, highest first
	n      int               // ready items, set-aside ones included

	out    map[string]int          // items of each group handed out
	outOf  map[T]string            // the group of each item handed out
	setOff map[string][]*bucket[T] // groups set aside at their limit, at each priority
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
	if group == nil {
		panic("workqueue: a grouped priority queue needs a group function")
	}
	if limit < 0 {
		panic("workqueue: the limit of items of one group in processing must not be negative")
	}
	s := New[T]()
	s.fair = &fair[T]{
		name:   group,
		limit:  limit,
		levels: make(map[int]*level[T]),
		out:    make(map[string]int),
		outOf:  make(map[T]string),
		setOff: make(map[string][]*bucket[T]),
	}
	return s
}

// groupOf returns the group of item, which is not yet an entry: the group it has while handed
// out, or the one the group function names, which may panic.
func (f *fair[T]) groupOf(item T) string {
	if name, ok := f.outOf[item]; ok {
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
	case f.atLimit(b.name):
		b.aside = true
		f.setOff[b.name] = append(f.setOff[b.name], b)
		return
	}
	b.inRound = true
	if !b.level.active {
		b.level.active = true
		f.activate(b.level.priority)
	}
	b.level.round.Push(b)
}

// atLimit reports whether the group name has as many items handed out as the limit.
func (f *fair[T]) atLimit(name string) bool { return f.limit > 0 && f.out[name] >= f.limit }

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
			if f.atLimit(b.name) {
				f.enter(b) // sets it aside
				continue
			}
			e = b.items.top()
			b.items.remove(e)
			f.n--
			f.out[b.name]++
			f.outOf[e.item] = b.name
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
	name, ok := f.outOf[item]
	if !ok {
		return
	}
	delete(f.outOf, item)
	if f.out[name]--; f.out[name] == 0 {
		delete(f.out, name)
	}
	back := f.setOff[name]
	if len(back) == 0 || f.atLimit(name) {
		return
	}
	delete(f.setOff, name)
	for _, b := range back {
		b.aside = false
		f.enter(b)
		f.letGo(b)
	}
}

// Out returns how many items of the group named name are handed out; zero for a state without
// groups.
func (s *State[T]) Out(name string) int {
	if s.fair == nil {
		return 0
	}
	return s.fair.out[name]
}
