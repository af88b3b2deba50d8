package e2e

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// The checks are pure functions of the replicas' records, so that checks_unit_test.go can
// show, on records made up for the purpose, that each one catches what it is for.

// interval is one reconcile: from its Start to its End, or to its replica's death if it has
// no End (killed mid-reconcile), and the writes it made.
//
// What the package promises is about writes: a reconcile, from the Get that handed the key out
// to its last write, does not overlap another replica's. So a reconcile's span, which the
// overlap check compares, runs from its Start to its last Write, and is only its Start if it
// wrote nothing: a reconcile that a pause froze after its last write, or that stopped without
// writing, may end after another replica took the key, harmlessly; but another replica taking
// the key between this one's Start and a later write of this one is an overlap.
type interval struct {
	replica    string
	key        string
	gen        int
	start, end time.Duration
	lastWrite  time.Duration // the last Write's instant, if wrote
	wrote      bool
	cancelled  bool // it stopped before completing its work
	open       bool // no End: it ran until its replica died
}

// spanEnd is when the reconcile's span ends: its last write, or its start if it wrote nothing.
func (iv interval) spanEnd() time.Duration {
	if iv.wrote {
		return iv.lastWrite
	}
	return iv.start
}

// intervals pairs each replica's Start, Write and End events per key. deaths gives when each
// killed replica was seen dead; a Start without an End on another replica is an error, as is a
// Start while the same replica has the key open (a queue handing one key out twice), or a
// Write or an End outside a reconcile.
func intervals(events []record.Event, deaths map[string]time.Duration) ([]interval, error) {
	type slot struct{ replica, key string }
	openAt := make(map[slot]interval)
	var out []interval
	for _, e := range events {
		s := slot{e.Replica, e.Key}
		switch e.Kind {
		case record.Start:
			if prev, ok := openAt[s]; ok {
				return nil, fmt.Errorf("%s started %s at %v while reconciling it since %v", e.Replica, e.Key, e.At, prev.start)
			}
			openAt[s] = interval{replica: e.Replica, key: e.Key, gen: e.Gen, start: e.At}
		case record.Write:
			iv, ok := openAt[s]
			if !ok {
				return nil, fmt.Errorf("%s wrote %s at %v outside a reconcile of it", e.Replica, e.Key, e.At)
			}
			iv.lastWrite, iv.wrote = e.At, true
			openAt[s] = iv
		case record.End:
			iv, ok := openAt[s]
			if !ok {
				return nil, fmt.Errorf("%s ended %s at %v without starting it", e.Replica, e.Key, e.At)
			}
			delete(openAt, s)
			iv.end, iv.cancelled = e.At, e.Cancelled
			out = append(out, iv)
		}
	}
	for s, iv := range openAt {
		death, ok := deaths[s.replica]
		if !ok {
			return nil, fmt.Errorf("%s never ended its reconcile of %s started at %v, and did not die", s.replica, s.key, iv.start)
		}
		iv.end, iv.open = death, true
		out = append(out, iv)
	}
	return out, nil
}

// overlap is two replicas reconciling one key at once.
type overlap struct {
	a, b interval      // a started first
	by   time.Duration // how long both spans ran, or how long a wrote on after b started if b wrote nothing
}

// overlaps returns every pair of reconciles of one key, on different replicas, whose spans
// (see interval) intersect: the later one started before the earlier one's last write.
// Touching spans (a last write at the instant the other starts) do not.
func overlaps(ivs []interval) []overlap {
	byKey := make(map[string][]interval)
	for _, iv := range ivs {
		byKey[iv.key] = append(byKey[iv.key], iv)
	}
	var out []overlap
	for _, list := range byKey {
		sort.Slice(list, func(i, j int) bool { return list[i].start < list[j].start })
		for i, a := range list {
			for _, b := range list[i+1:] {
				if b.start >= a.spanEnd() {
					break // sorted by start: no later one starts before a's span ends either
				}
				if a.replica != b.replica {
					end := a.spanEnd()
					if b.wrote {
						end = min(end, b.spanEnd())
					}
					out = append(out, overlap{a: a, b: b, by: end - b.start})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].b.start < out[j].b.start })
	return out
}

// lost returns the keys, in order, whose final generation no reconcile completed: no End
// event, uncancelled, of a reconcile that read that generation.
func lost(events []record.Event, final map[string]int) []string {
	done := make(map[string]bool)
	for _, e := range events {
		if e.Kind == record.End && !e.Cancelled && e.Gen >= final[e.Key] {
			done[e.Key] = true
		}
	}
	var out []string
	for key := range final {
		if !done[key] {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// holdings replays the Held events up to and including instant at and returns each listed
// replica's buckets then (nil for none).
func holdings(events []record.Event, replicas []string, at time.Duration) map[string][]int {
	held := make(map[string][]int, len(replicas))
	for _, r := range replicas {
		held[r] = nil
	}
	for _, e := range events {
		if e.Kind == record.Held && e.At <= at {
			if _, ok := held[e.Replica]; ok {
				held[e.Replica] = e.Buckets
			}
		}
	}
	return held
}

// balanced reports whether held covers each of the buckets exactly once with every replica
// within one bucket of the fair share, buckets/len(held).
func balanced(held map[string][]int, buckets int) bool {
	seen := make([]bool, buckets)
	fair := float64(buckets) / float64(len(held))
	for _, bs := range held {
		if math.Abs(float64(len(bs))-fair) > 1 {
			return false
		}
		for _, b := range bs {
			if seen[b] {
				return false
			}
			seen[b] = true
		}
	}
	return !slices.Contains(seen, false)
}

// balancedSince returns the first instant at or after since at which the replicas' holdings,
// as their Held events tell, are balanced, and whether there is one.
func balancedSince(events []record.Event, replicas []string, buckets int, since time.Duration) (time.Duration, bool) {
	if balanced(holdings(events, replicas, since), buckets) {
		return since, true
	}
	var instants []time.Duration
	for _, e := range events {
		if e.Kind == record.Held && e.At > since {
			instants = append(instants, e.At)
		}
	}
	slices.Sort(instants)
	for _, at := range instants {
		if balanced(holdings(events, replicas, at), buckets) {
			return at, true
		}
	}
	return 0, false
}

// served returns, for each of the buckets, the first instant at or after since at which a
// replica other than gone started a reconcile of one of its keys; a bucket never served
// is missing from the map.
func served(events []record.Event, gone string, buckets []int, total int, since time.Duration) map[int]time.Duration {
	want := make(map[int]bool, len(buckets))
	for _, b := range buckets {
		want[b] = true
	}
	first := make(map[int]time.Duration)
	for _, e := range events {
		if e.Kind != record.Start || e.Replica == gone || e.At < since {
			continue
		}
		b := bucketOf(e.Key, total)
		if _, ok := first[b]; want[b] && (!ok || e.At < first[b]) {
			first[b] = e.At
		}
	}
	return first
}

// lastHeld returns the buckets that replica last recorded holding at or before at.
func lastHeld(events []record.Event, replica string, at time.Duration) []int {
	return holdings(events, []string{replica}, at)[replica]
}

// bucketOf is the bucket of a key, as the replicas' queues compute it: by sharding.HashKey,
// or by its object's UID in the scenarios whose replicas shard their watch by UID (uidBuckets).
func bucketOf(key string, buckets int) int {
	if b, ok := uidBuckets.Load(key); ok {
		return b.(int)
	}
	return sharding.BucketOf(sharding.HashKey(key), buckets)
}

// uidBuckets holds the bucket of each key of the scenarios that shard the watch by UID, from
// its object's UID. Keys are unique across scenarios: each has its own namespace.
var uidBuckets sync.Map

// pause is one SIGSTOP of a replica: stopped at from, continued at to.
type pause struct {
	replica  string
	from, to time.Duration
}

// overruns returns the hand-overs that found reconciles still running at the end of the
// bucket's hold window (Handover.Overran), split into those that no pause of their replica
// explains and those that one does. The contexts of a bucket's reconciles end the drain
// budget before the window does, and each returns within its stop latency, less than the
// budget: a reconcile still running then means its context ended too late, unless the
// replica was stopped during that budget, freezing the reconcile (frozen, it writes nothing:
// the overlap check, on the writes, still holds it to the promise). The hand-over is recorded
// at the end of the window, or when the replica resumed if the pause spanned it.
func overruns(events []record.Event, pauses []pause, budget time.Duration) (unexplained, explained []record.Event) {
	for _, e := range events {
		if e.Kind != record.HandedOver || e.Overran == 0 {
			continue
		}
		frozen := slices.ContainsFunc(pauses, func(p pause) bool {
			return p.replica == e.Replica && p.from < e.At && p.to > e.At-budget
		})
		if frozen {
			explained = append(explained, e)
		} else {
			unexplained = append(unexplained, e)
		}
	}
	return unexplained, explained
}
