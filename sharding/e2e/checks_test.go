package e2e

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// The checks are pure functions of the replicas' records, so that checks_unit_test.go can
// show, on records made up for the purpose, that each one catches what it is for.

// interval is one reconcile: from its Start to its End, or to its replica's death if it has
// no End (killed mid-reconcile).
type interval struct {
	replica    string
	key        string
	gen        int
	start, end time.Duration
	cancelled  bool // its context was done: it did not complete
	open       bool // no End: it ran until its replica died
}

// intervals pairs each replica's Start and End events per key. deaths gives when each killed
// replica was seen dead; a Start without an End on another replica is an error, as is a Start
// while the same replica has the key open (a queue handing one key out twice).
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
	by   time.Duration // how long both ran
}

// overlaps returns every pair of intervals of one key, on different replicas, that intersect.
// Touching intervals (one ends when the other starts) do not.
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
				if b.start >= a.end {
					break // sorted by start: no later one starts before a ends either
				}
				if a.replica != b.replica {
					out = append(out, overlap{a: a, b: b, by: min(a.end, b.end) - b.start})
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

// bucketOf is the bucket of a key, as the replicas' queues compute it.
func bucketOf(key string, buckets int) int { return sharding.BucketOf(sharding.HashKey(key), buckets) }
