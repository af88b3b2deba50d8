package e2e

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// The scenarios whose replicas shard their watch (package shardcache, replica flag -watch):
// each caches only the ConfigMaps of the buckets it watches, which are those it holds plus
// those in transition.

// cacheFaults checks the Cached events of a scenario whose every bucket has perBucket
// objects: each says the replica caches exactly the objects of the buckets it watches, no
// more (another bucket's) and no fewer (a bucket whose watch has not synced).
func cacheFaults(events []record.Event, perBucket int) []string {
	var faults []string
	for _, e := range events {
		if e.Kind == record.Cached && e.Count != perBucket*len(e.Buckets) {
			faults = append(faults, fmt.Sprintf("%s caches %d objects while watching buckets %v, of %d objects each", e.Replica, e.Count, e.Buckets, perBucket))
		}
	}
	return faults
}

// lastCached returns the last Cached event of replica, and whether there is one.
func lastCached(events []record.Event, replica string) (record.Event, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if e := events[i]; e.Kind == record.Cached && e.Replica == replica {
			return e, true
		}
	}
	return record.Event{}, false
}

// watchesHeld reports whether every live replica watches exactly the buckets it holds.
func (h *harness) watchesHeld() bool {
	for _, name := range h.live() {
		c, _ := lastCached(h.events, name)
		if !slices.Equal(c.Buckets, lastHeld(h.events, name, record.Now())) {
			return false
		}
	}
	return true
}

// checkCaches checks a sharded-watch scenario's caches before its replicas leave: every
// Cached event is exact (cacheFaults), and the live replicas settle on watching the buckets
// they hold, no more. It records the objects each caches, and how long buckets took from
// their preparation to their watch synced.
func (h *harness) checkCaches() {
	h.t.Helper()
	for _, f := range cacheFaults(h.events, keysPerBucket) {
		h.t.Errorf("cache: %s", f)
	}
	if !h.await(5*h.tm.lease, h.watchesHeld) {
		for _, name := range h.live() {
			c, _ := lastCached(h.events, name)
			h.t.Errorf("cache: %s watches buckets %v and holds %v", name, c.Buckets, lastHeld(h.events, name, record.Now()))
		}
	}
	var counts []string
	for _, name := range h.live() {
		c, _ := lastCached(h.events, name)
		counts = append(counts, fmt.Sprintf("%s %d", name, c.Count))
	}
	figure(h.t, "objects cached per replica", "%v of %d", counts, len(h.final))
	var synced []time.Duration
	for _, e := range h.events {
		if e.Kind == record.Synced {
			synced = append(synced, e.Drain)
		}
	}
	if len(synced) > 0 {
		slices.Sort(synced)
		figure(h.t, "bucket acquired to watch synced", "median %v, most %v, of %d", synced[len(synced)/2].Round(time.Millisecond),
			synced[len(synced)-1].Round(time.Millisecond), len(synced))
	}
	ignored := h.has(func(e record.Event) bool { return e.Kind == record.Ignored })
	if ignored != (h.cluster != env.cluster) {
		h.t.Errorf("cache: the replicas reported the server ignoring shard selectors: %v; on the server with the gate off: %v", ignored, h.cluster != env.cluster)
	}
}

// shardedWatch reports whether the scenario's replicas shard their watch.
func (h *harness) shardedWatch() bool {
	return slices.ContainsFunc(h.replicaArgs, func(arg string) bool { return strings.HasPrefix(arg, "-watch=") && arg != "-watch=" })
}
