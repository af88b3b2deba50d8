package e2e

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/faultproxy"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// finish ends a scenario and checks the two promises on its records: it stops the changes,
// heals every replica's connection, waits until each key's last generation has been
// reconciled (nothing lost), lets the live replicas leave gracefully, and then checks that no
// two replicas reconciled one key at once (no overlap). It also checks the three bounds the
// package's safety rests on: no hand-over found a reconcile running at the end of the hold
// window, no reconcile wrote after it (by the Leases' versions), and no replica took a bucket
// from another before that one's hold window closed.
func (h *harness) finish() {
	h.t.Helper()
	h.stopUpdates()
	for _, name := range h.live() {
		p := h.procs[name]
		p.cmd.Process.Signal(syscall.SIGCONT)
		p.proxy.SetDelay(0, 0)
		p.proxy.Set(faultproxy.Open)
	}
	limit := 2*h.tm.lease + 15*time.Second
	if !h.await(limit, func() bool { return len(lost(h.events, h.final)) == 0 }) {
		h.t.Errorf("lost: %s", h.describeLost(lost(h.events, h.final)))
	}
	if h.shardedWatch() {
		h.checkCaches()
	}
	for _, name := range h.live() {
		h.leave(h.procs[name])
	}
	ivs, err := intervals(h.events, h.deaths)
	if err != nil {
		h.t.Fatalf("records: %v", err)
	}
	if found := overlaps(ivs); len(found) > 0 {
		h.t.Errorf("overlap: %d times two replicas reconciled one key at once:\n%s", len(found), h.describeOverlaps(found))
	}
	// Every reconcile returns within the stop latency, less than the drain budget, of its
	// context's end: a hand-over that still finds one running at the end of the hold window
	// means the context ended too late (the package documentation promises otherwise), unless
	// a pause froze the reconcile meanwhile (see overruns).
	unexplained, explained := overruns(h.events, h.pauses, h.tm.drainBudget())
	for _, e := range unexplained {
		h.t.Errorf("overran: at %s %s handed bucket %d over (%s) with %d reconciles still running at the end of its hold window, although each returns within %v of its context's end (drain budget %v)",
			h.at(e.At), e.Replica, e.Bucket, e.Cause, e.Overran, h.tm.stop, h.tm.drainBudget())
	}
	for _, e := range explained {
		h.t.Logf("overran while paused: at %s %s handed bucket %d over (%s) with %d reconciles frozen by a pause within the drain budget before",
			h.at(e.At), e.Replica, e.Bucket, e.Cause, e.Overran)
	}
	versions, err := h.leases.end()
	if err != nil {
		h.t.Errorf("watching the Leases: %v", err)
	}
	for _, lw := range lateWrites(h.events, versions, h.buckets, h.tm.window()) {
		if lw.interrupted != nil {
			h.t.Errorf("late write: %s wrote %s (bucket %d) at %s, in a reconcile begun at %s, after its tenure was interrupted: the Lease named %q at %s",
				lw.write.Replica, lw.write.Key, bucketOf(lw.write.Key, h.buckets), h.at(lw.write.At), h.at(lw.started), lw.interrupted.holder, h.at(lw.interrupted.seen))
			continue
		}
		h.t.Errorf("late write: %s wrote %s (bucket %d) at %s, after the end of its hold window at %s",
			lw.write.Replica, lw.write.Key, bucketOf(lw.write.Key, h.buckets), h.at(lw.write.At), h.at(lw.windowEnd))
	}
	all := takeovers(versions)
	for _, t := range early(all, h.tm.window()) {
		h.t.Errorf("early takeover: %s acquired bucket %d %v after %s's last renewal began, before its hold window (%v) closed",
			t.to, t.bucket, t.acquired.Sub(t.renewed).Round(time.Millisecond), t.from, h.tm.window().Round(time.Millisecond))
	}
	h.t.Logf("%d reconciles by %d replicas, %d changes, %d takeovers", len(ivs), len(h.procs), h.changes(), len(all))
}

// changes returns how many changes the harness made.
func (h *harness) changes() int {
	n := 0
	for _, g := range h.final {
		n += g - 1
	}
	return n
}

// describeLost says, for each lost key, its bucket, the generation it ends at and the last
// reconcile any replica made of it.
func (h *harness) describeLost(keys []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d keys never reconciled at their last generation within the deadline", len(keys), len(h.final))
	for i, key := range keys {
		if i == 10 {
			fmt.Fprintf(&b, "\n  … and %d more", len(keys)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s (bucket %d) at gen %d; last reconcile: %s", key, bucketOf(key, h.buckets), h.final[key], h.lastReconcile(key))
	}
	return b.String()
}

func (h *harness) lastReconcile(key string) string {
	for i := len(h.events) - 1; i >= 0; i-- {
		if e := h.events[i]; e.Kind == record.End && e.Key == key {
			return fmt.Sprintf("%s gen %d at %s (cancelled %v)", e.Replica, e.Gen, h.at(e.At), e.Cancelled)
		}
	}
	return "none"
}

// describeOverlaps lists up to ten overlaps and, for each bucket they are in, what the two
// replicas recorded about it around them.
func (h *harness) describeOverlaps(found []overlap) string {
	var b strings.Builder
	byBucket := make(map[int][]overlap)
	var order []int
	for _, o := range found[:min(len(found), 10)] {
		bucket := bucketOf(o.a.key, h.buckets)
		if _, ok := byBucket[bucket]; !ok {
			order = append(order, bucket)
		}
		byBucket[bucket] = append(byBucket[bucket], o)
	}
	for _, bucket := range order {
		group := byBucket[bucket]
		from, to := group[0].a.start-3*time.Second, group[0].b.end+time.Second
		replicas := map[string]bool{}
		for _, o := range group {
			fmt.Fprintf(&b, "  %s (bucket %d) for %v: %s; %s\n", o.a.key, bucket, o.by.Round(time.Millisecond), h.describeInterval(o.a), h.describeInterval(o.b))
			replicas[o.a.replica], replicas[o.b.replica] = true, true
			from, to = min(from, o.a.start-3*time.Second), max(to, o.b.end+time.Second)
		}
		fmt.Fprintf(&b, "    what the replicas recorded about bucket %d meanwhile:\n", bucket)
		for _, e := range h.events {
			if !replicas[e.Replica] || e.At < from || e.At > to {
				continue
			}
			switch {
			case e.Kind == record.HandedOver && e.Bucket == bucket:
				fmt.Fprintf(&b, "      %s %s handed it over (%s) after draining %v, %d overran\n", h.at(e.At), e.Replica, e.Cause, e.Drain.Round(time.Millisecond), e.Overran)
			case e.Kind == record.Held && h.heldChanged(e, bucket):
				fmt.Fprintf(&b, "      %s %s holds %v\n", h.at(e.At), e.Replica, e.Buckets)
			}
		}
	}
	if len(found) > 10 {
		fmt.Fprintf(&b, "  (%d more not shown)\n", len(found)-10)
	}
	return b.String()
}

// heldChanged reports whether the Held event e added or removed bucket from its replica's
// holdings.
func (h *harness) heldChanged(e record.Event, bucket int) bool {
	before := holdings(h.events, []string{e.Replica}, e.At-1)[e.Replica]
	return slices.Contains(before, bucket) != slices.Contains(e.Buckets, bucket)
}

func (h *harness) describeInterval(iv interval) string {
	how := "completed"
	switch {
	case iv.open:
		how = "killed mid-reconcile"
	case iv.cancelled:
		how = "cancelled"
	}
	wrote := "no write"
	if iv.wrote {
		wrote = "last write " + h.at(iv.lastWrite)
	}
	return fmt.Sprintf("%s gen %d [%s, %s] %s, %s", iv.replica, iv.gen, h.at(iv.start), h.at(iv.end), wrote, how)
}

// heldBy returns, for each bucket, which live replicas last recorded holding it.
func (h *harness) heldBy() map[int][]string {
	out := make(map[int][]string)
	for name, bs := range holdings(h.events, h.live(), record.Now()) {
		for _, b := range bs {
			out[b] = append(out[b], name)
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}
