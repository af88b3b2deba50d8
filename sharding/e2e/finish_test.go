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
// two replicas reconciled one key at once (no overlap).
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
	// means the context ended too late (the package documentation promises otherwise).
	for _, e := range h.events {
		if e.Kind == record.HandedOver && e.Overran > 0 {
			h.t.Errorf("overran: at %s %s handed bucket %d over (%s) with %d reconciles still running at the end of its hold window, although each returns within %v of its context's end (drain budget %v)",
				h.at(e.At), e.Replica, e.Bucket, e.Cause, e.Overran, h.tm.stop, h.tm.drainBudget())
		}
	}
	h.t.Logf("%d reconciles by %d replicas, %d changes", len(ivs), len(h.procs), h.changes())
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

// describeOverlaps lists up to ten overlaps with, for each, what the two replicas recorded
// about the key's bucket around it.
func (h *harness) describeOverlaps(found []overlap) string {
	var b strings.Builder
	for i, o := range found {
		if i == 10 {
			fmt.Fprintf(&b, "  … and %d more\n", len(found)-i)
			break
		}
		bucket := bucketOf(o.a.key, h.buckets)
		fmt.Fprintf(&b, "  %s (bucket %d) for %v: %s; %s\n", o.a.key, bucket, o.by.Round(time.Millisecond), h.describeInterval(o.a), h.describeInterval(o.b))
		for _, e := range h.events {
			if (e.Replica != o.a.replica && e.Replica != o.b.replica) || e.At < o.a.start-3*time.Second || e.At > o.b.end+time.Second {
				continue
			}
			switch {
			case e.Kind == record.HandedOver && e.Bucket == bucket:
				fmt.Fprintf(&b, "      %s %s handed bucket %d over (%s) after draining %v, %d overran\n", h.at(e.At), e.Replica, bucket, e.Cause, e.Drain.Round(time.Millisecond), e.Overran)
			case e.Kind == record.Held:
				fmt.Fprintf(&b, "      %s %s holds %v\n", h.at(e.At), e.Replica, e.Buckets)
			}
		}
	}
	return b.String()
}

func (h *harness) describeInterval(iv interval) string {
	how := "completed"
	switch {
	case iv.open:
		how = "killed mid-reconcile"
	case iv.cancelled:
		how = "cancelled"
	}
	return fmt.Sprintf("%s gen %d [%s, %s] %s", iv.replica, iv.gen, h.at(iv.start), h.at(iv.end), how)
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
