package concurrent

import (
	"cmp"
	"slices"
)

// check verifies, on the whole log of a finished round, the invariants that need it. The
// stamps only order events: an event stamped before another began happened before it, and
// every check below uses only that, so it cannot blame the queue for how the goroutines were
// scheduled.
func (r *round) check() {
	adds := groupByKey(slices.Concat(r.adds[:]...), func(a add) int { return a.key })
	processed := groupByKey(slices.Concat(r.processings[:]...), func(p processing) int { return p.key })
	for _, ps := range processed {
		slices.SortFunc(ps, func(a, b processing) int { return cmp.Compare(a.getEnd, b.getEnd) })
	}
	for k, as := range adds {
		r.checkNothingLost(k, as, processed[k])
		r.checkNoExtraProcessing(k, as, processed[k])
	}
	for p := range producers {
		r.checkOrder(p, processed)
	}
	for p := range producers {
		r.checkNotEarly(p, processed)
	}
	if r.shutdown.drain {
		r.checkDrain(processed)
	}
	if d := r.q.depth; d != nil && d.negative.Load() {
		r.violate("[depth] the depth metric went below zero")
	}
}

// checkNothingLost: an add that must lead to a processing of its key did, that is, some Get
// returned the key after the add started. The adds that must: all of them when the round
// waited for everything to be processed before shutting down; otherwise the immediate adds
// that returned before the shutdown began (after shutdown, queued items are still handed out,
// and an item added during its processing is queued again by its Done).
func (r *round) checkNothingLost(k int, as []add, ps []processing) {
	var lastGet int64
	if len(ps) > 0 {
		lastGet = ps[len(ps)-1].getEnd
	}
	for _, a := range as {
		mustLead := r.quietAt > 0 || (a.immediate && a.end < r.shutdown.start)
		if mustLead && a.start > lastGet {
			r.violate("[lost-add] key %d: an add started (stamp %d) after the last Get of the key returned "+
				"(stamp %d), and no processing followed", k, a.start, lastGet)
			return
		}
	}
}

// checkNoExtraProcessing: each processing of a key needs an add of its own (an add queues an
// item once at most, and Done requeues it once for all the adds during its processing), made
// before the Get that handed the item out returned. So the n-th processing, in the order in
// which the Gets returned, needs n adds started before its Get returned.
func (r *round) checkNoExtraProcessing(k int, as []add, ps []processing) {
	starts := make([]int64, len(as))
	for i, a := range as {
		starts[i] = a.start
	}
	slices.Sort(starts)
	before := 0
	for n, p := range ps {
		for before < len(starts) && starts[before] < p.getEnd {
			before++
		}
		if before < n+1 {
			r.violate("[extra-processing] key %d: processing number %d, but only %d adds had started by "+
				"the time its Get returned", k, n+1, before)
			return
		}
	}
}

// checkOrder: first in, first out among producer p's own keys. Each is added once, by p, one
// after the other, so nothing dedups or requeues them, and an item is handed out when a Get
// takes it, between the start and the return of that Get. The key p added later cannot have
// been handed out first: its Get cannot have returned before the Get of an earlier key started.
func (r *round) checkOrder(p int, processed map[int][]processing) {
	var latestStart int64 // the latest start of the Get of an earlier key
	for _, a := range r.fifoOrder[p] {
		ps := processed[a.key]
		if len(ps) == 0 {
			continue // added after the shutdown began, or not handed out: other checks say whether it may be
		}
		if ps[0].getEnd < latestStart {
			r.violate("[fifo] producer %d: key %d was handed out (Get returned at stamp %d) before the Get of "+
				"a key it added earlier started (stamp %d)", p, a.key, ps[0].getEnd, latestStart)
			return
		}
		latestStart = max(latestStart, ps[0].getStart)
	}
}

// checkNotEarly: a key added with AddAfter(key, d) is not handed out before d has passed on
// the bubble's clock, which is exact. Each of producer p's delayed keys is added this way once,
// and by nothing else.
func (r *round) checkNotEarly(p int, processed map[int][]processing) {
	for _, a := range r.laterAdds[p] {
		if ps := processed[a.key]; len(ps) > 0 && ps[0].gotAt.Before(a.at.Add(a.delay)) {
			r.violate("[early] key %d, added with a delay of %v, was handed out after %v",
				a.key, a.delay, ps[0].gotAt.Sub(a.at))
			return
		}
	}
}

// checkDrain: ShutDownWithDrain returns only once no item is being processed, so no item
// handed out before it was called can still be in processing after it returned.
func (r *round) checkDrain(processed map[int][]processing) {
	for k, ps := range processed {
		for _, p := range ps {
			if p.getEnd < r.shutdown.start && p.doneStart > r.shutdown.end {
				r.violate("[drain] ShutDownWithDrain returned (stamp %d) while key %d, handed out before it "+
					"was called, was still in processing (Done at stamp %d)", r.shutdown.end, k, p.doneStart)
				return
			}
		}
	}
}

// groupByKey groups events by the key of each.
func groupByKey[E any](events []E, key func(E) int) map[int][]E {
	m := make(map[int][]E)
	for _, e := range events {
		m[key(e)] = append(m[key(e)], e)
	}
	return m
}
