package fuzz

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
)

// fairRef is what a priority queue with Group and MaxPerGroup adds to prioRef, written from
// the package documentation ("Groups, fairness and limits") and TypedPriorityQueueConfig:
//
//   - Each priority has a round: the groups whose ready items at that priority may be handed
//     out, in turn order. A group joins the end of a priority's round when an item of it
//     becomes ready there (added, promoted, raised to it, or let go by the Done of its item),
//     unless it is in that round already, or set aside there.
//   - The best item is at the highest priority whose round has a group that can be served: the
//     group at the front of that round leaves it, and hands out its ready item with the lowest
//     number; it joins the end of the round again if it has more ready items there. A group
//     met at the front with no ready item there any more (they were raised) is dropped.
//   - A group with limit items handed out is set aside, at a priority, when its turn comes
//     there, or when it reaches the limit: its items stay ready and counted in Len. When one of
//     its items is done, it joins, in the order it was set aside at them, the rounds of those
//     priorities again.
//
// Its state is the rounds, the set-aside priorities of each group and the count of each
// group's items handed out; the items are prioRef's records.
type fairRef[T comparable] struct {
	group  func(T) string
	limit  int
	rounds map[int][]string // each priority's groups, next first
	aside  map[string][]int // each group's priorities it is set aside at, in order
	out    map[string]int
}

func newFairRef[T comparable](group func(T) string, limit int) *fairRef[T] {
	return &fairRef[T]{group: group, limit: limit, rounds: make(map[int][]string),
		aside: make(map[string][]int), out: make(map[string]int)}
}

// servable returns the ready records of group g at priority, not held back, lowest number
// first.
func (r *prioRef[T]) servable(g string, priority int) []*record[T] {
	var recs []*record[T]
	for _, rec := range r.records {
		if _, locked := r.locked[rec.item]; !locked && !rec.waiting && rec.priority == priority && r.fair.group(rec.item) == g {
			recs = append(recs, rec)
		}
	}
	slices.SortFunc(recs, func(a, b *record[T]) int { return cmp.Compare(a.number, b.number) })
	return recs
}

func (f *fairRef[T]) atLimit(g string) bool { return f.limit > 0 && f.out[g] >= f.limit }

// readied tells the turns that rec became ready at its priority; nothing without groups, or
// while its item is handed out.
func (r *prioRef[T]) readied(rec *record[T]) {
	if r.fair == nil {
		return
	}
	if _, locked := r.locked[rec.item]; !locked {
		r.join(r.fair.group(rec.item), rec.priority)
	}
}

// join puts group g at the end of the round of priority, or sets it aside there at its limit,
// unless it is in that round, set aside there, or has no servable item there.
func (r *prioRef[T]) join(g string, priority int) {
	f := r.fair
	switch {
	case slices.Contains(f.rounds[priority], g), slices.Contains(f.aside[g], priority), len(r.servable(g, priority)) == 0:
	case f.atLimit(g):
		f.aside[g] = append(f.aside[g], priority)
	default:
		f.rounds[priority] = append(f.rounds[priority], g)
	}
}

// handOutInTurn is handOut with groups.
func (r *prioRef[T]) handOutInTurn(now time.Time) (item T, priority int, ok bool) {
	f := r.fair
	var priorities []int
	for p, round := range f.rounds {
		if len(round) > 0 {
			priorities = append(priorities, p)
		}
	}
	slices.Sort(priorities)
	slices.Reverse(priorities)
	for _, p := range priorities {
		for len(f.rounds[p]) > 0 {
			g := f.rounds[p][0]
			f.rounds[p] = f.rounds[p][1:]
			recs := r.servable(g, p)
			if len(recs) == 0 {
				continue
			}
			if f.atLimit(g) {
				r.join(g, p) // sets it aside
				continue
			}
			best := recs[0]
			r.records = slices.DeleteFunc(r.records, func(rec *record[T]) bool { return rec == best })
			r.locked[best.item] = now
			f.out[g]++
			r.join(g, p)
			return best.item, best.priority, true
		}
	}
	return item, 0, false
}

// groupDone counts item, handed out, as done: its group may rejoin the rounds it was set aside
// at.
func (r *prioRef[T]) groupDone(item T) {
	f := r.fair
	g := f.group(item)
	f.out[g]--
	if back := f.aside[g]; len(back) > 0 && !f.atLimit(g) {
		delete(f.aside, g)
		for _, p := range back {
			r.join(g, p)
		}
	}
}

// FuzzPriorityGroups is the differential target of the options of issue 28 on the priority
// queue: the input chooses a number of groups (item mod k; none), MaxPerGroup, a limiter,
// MaxRetries, and metrics or not, then a sequence of calls of a priority queue (client-go's,
// AddWithOpts with every option, GetWithPriority), which the queue and prioModel with fairRef
// both receive on synctest's fake clock. Every answer must match, every Get's item and
// priority, and every give-up, heard in the caller of AddRateLimited or AddWithOpts.
func FuzzPriorityGroups(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			in := &input{data: data}
			d, g := newPriorityGroupDuel(t, in)
			for calls := 0; calls < maxCalls && !in.done(); calls++ {
				const clientGo = 12
				switch c := in.pick(clientGo + 2); {
				case c == 9:
					g.addRateLimited(d, choose(in, keys...))
				case c < clientGo:
					clientGoCall(d, in, c)
				case c == clientGo:
					g.addWithOpts(d, decodeAddOpts(in), batchOf(in))
				default:
					d.getWithPriority(decodeWait(in))
				}
			}
			d.finish(keys)
		})
	})
}

// newPriorityGroupDuel decodes the options from in and returns the duel between the priority
// queue they build and the model.
func newPriorityGroupDuel(t *testing.T, in *input) (*duel[int], *groupDuel) {
	return newPriorityGroupDuelWith(t, in, workqueue.Debounce{})
}

// newPriorityGroupDuelWith is newPriorityGroupDuel with the debounce window window on both
// sides.
func newPriorityGroupDuelWith(t *testing.T, in *input, window workqueue.Debounce) (*duel[int], *groupDuel) {
	k, limit := in.pick(4), in.pick(3)
	if k == 0 {
		limit = 0
	}
	spec := decodeLimiter(in, tame, 2)
	maxRetries := in.pick(4)
	metrics := in.pick(2) == 1
	g := &groupDuel{sides: [2]*giveUps{new(giveUps), new(giveUps)}}
	config := workqueue.TypedPriorityQueueConfig[int]{RateLimiter: build[int](spec), MaxPerGroup: limit, MaxRetries: maxRetries, Debounce: window}
	group := func(item int) string { return fmt.Sprint(item % max(k, 1)) }
	if k > 0 {
		config.Group = group
	}
	if maxRetries > 0 {
		config.GiveUp = g.sides[0].hear
	}
	if metrics {
		config.Name, config.MetricsProvider = "fuzz", quietMetrics{}
	}
	m := newPrioModel(ref[int](spec))
	m.ref.fair = newFairRef(group, limit) // one group, no limit: the order of prioRef
	m.ref.debounce = window
	m.maxRetries, m.counts = maxRetries, make(map[int]int)
	if maxRetries > 0 {
		m.giveUp = g.sides[1].hear
	}
	name := fmt.Sprintf("NewTypedPriorityQueue(groups %d, MaxPerGroup %d, MaxRetries %d, metrics %v, Debounce %+v)", k, limit, maxRetries, metrics, window)
	real := foreignPriority[int]{workqueue.NewTypedPriorityQueue(config)}
	return startDuel(t, name, rateLimiting, metrics, real, m, &spec), g
}

// foreignPriority hides a priority queue's extensions, which the target does not call.
type foreignPriority[T comparable] struct {
	workqueue.TypedPriorityInterface[T]
}

// addWithOpts calls AddWithOpts on both sides; each answers with the give-ups it heard.
func (g *groupDuel) addWithOpts(d *duel[int], o workqueue.AddOpts, items []int) {
	desc := fmt.Sprintf("AddWithOpts({After: %v, RateLimited: %v, Priority: %s}, %#v)", o.After, o.RateLimited, describePriority(o.Priority), items)
	d.call(desc, "AddWithOpts", func(q workqueue.TypedInterface[int]) string {
		priorityOf(q).AddWithOpts(o, items...)
		side := g.sides[1]
		if q == d.real {
			side = g.sides[0]
		}
		return side.take()
	})
}
