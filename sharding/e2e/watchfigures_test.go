package e2e

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

var watchObjects = flag.Int("e2e.watch-objects", 0,
	"run TestWatchFigures, the sharded watch's figures, with this many ConfigMaps (e.g. 30000); 0 skips it")

// TestWatchFigures measures what sharding the watch saves, on the real kube-apiserver, with
// -e2e.watch-objects ConfigMaps of about 1 KiB in one namespace, with ShardedListAndWatch on
// and then off: per replica, for one replica watching everything (as without package
// shardcache), one with a sharded watch, and each of three with one: the objects cached, the
// heap in use after a garbage collection, the watch events received and the bytes read from
// the API server while the objects change, and the time from a bucket's acquisition to its
// watch synced; then, of the three, a graceful hand-over and a crash, each with the watches
// restarting on the others. A replica over an empty namespace gives the heap of a replica
// that caches nothing. It is out of the default run (minutes, and memory); see README.md.
func TestWatchFigures(t *testing.T) {
	if *watchObjects <= 0 {
		t.Skip("-e2e.watch-objects not set")
	}
	needEnv(t)
	for _, server := range []struct {
		name    string
		cluster func(*testing.T) *cluster.Cluster
	}{
		{"gate-on", func(*testing.T) *cluster.Cluster { return env.cluster }},
		{"gate-off", needGateOff},
	} {
		t.Run(server.name, func(t *testing.T) {
			c := server.cluster(t)
			var base replicaStats
			t.Run("empty", func(t *testing.T) {
				empty := emptyHarness(t, c, fast, figureArgs("-watch=uid")...)
				t.Cleanup(empty.cleanup)
				base = empty.measure("empty", 1)[0]
				figure(t, "heap of a replica caching nothing", "%.1f MiB", mib(base.Heap))
				empty.leave(empty.procs[empty.live()[0]])
			})
			t.Run("objects", func(t *testing.T) { watchFigures(t, c, base) })
		})
	}
}

// watchFigures is TestWatchFigures on one server, given the figures of an empty replica.
func watchFigures(t *testing.T, c *cluster.Cluster, base replicaStats) {
	h := emptyHarness(t, c, fast)
	t.Cleanup(h.cleanup)
	h.populateMany(*watchObjects)
	for _, run := range []struct {
		name     string
		watch    string
		replicas int
	}{{"whole watch, 1 replica", "-watch=", 1}, {"sharded, 1 replica", "-watch=uid", 1}, {"sharded, 3 replicas", "-watch=uid", 3}} {
		h.replicaArgs = figureArgs(run.watch)
		stats := h.measure(run.name, run.replicas)
		for i, s := range stats {
			figure(t, fmt.Sprintf("%s: r%d", run.name, i+1),
				"%d objects cached, heap %.1f MiB (%.1f over empty), of %d changes %d watch events received + %d dropped, %.1f MiB read (%.1f MiB while changing)",
				s.Count, mib(s.Heap), mib(s.Heap-base.Heap), s.changes, s.Events, s.Filtered, mib(s.Bytes), mib(s.changeBytes))
		}
		if run.replicas == 3 {
			h.handOverFigures()
		}
		for _, name := range h.live() {
			h.leave(h.procs[name])
		}
	}
}

// figureArgs are the replica flags of the figures: reconciles that take a millisecond and
// write once, and enough workers for the first reconcile of every object.
func figureArgs(watch string) []string {
	return []string{"-kind", "queue", watch, "-work", "1ms", "-writes", "1", "-stop-latency", "1ms", "-workers", "64"}
}

// mib converts bytes to MiB.
func mib(n int64) float64 { return float64(n) / (1 << 20) }

// populateMany creates n ConfigMaps of about 1 KiB, 32 at a time, and notes their buckets
// by UID.
func (h *harness) populateMany(n int) {
	start := time.Now()
	filler := strings.Repeat("x", 1000)
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range 32 {
		wg.Go(func() {
			for i := range next {
				name := fmt.Sprintf("cm-%05d", i)
				cm, err := h.client.CoreV1().ConfigMaps(h.ns).Create(context.Background(), &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Data:       map[string]string{"gen": "1", "filler": filler},
				}, metav1.CreateOptions{})
				if err != nil {
					h.t.Error(err)
					continue
				}
				uidBuckets.Store(h.ns+"/"+name, sharding.BucketOf(sharding.Hash(string(cm.UID)), h.buckets))
				mu.Lock()
				h.objects[h.ns+"/"+name], h.final[h.ns+"/"+name] = cm, 1
				mu.Unlock()
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if h.t.Failed() {
		h.t.FailNow()
	}
	figure(h.t, "ConfigMaps created", "%d in %v", n, time.Since(start).Round(time.Millisecond))
}

// replicaStats is what one replica measured of itself, as its Stats records tell: at the end,
// and the bytes read while the objects changed.
type replicaStats struct {
	record.Event
	changeBytes int64
	changes     int // the changes the harness made meanwhile
}

// measure starts n replicas, waits until every bucket is held and synced and every object
// reconciled, changes objects for a few seconds, and returns each replica's Stats, with the
// events and bytes of the changes alone.
func (h *harness) measure(name string, n int) []replicaStats {
	h.t.Helper()
	began := len(h.events)
	var ps []*proc
	for i := 1; i <= n; i++ {
		ps = append(ps, h.launch(fmt.Sprintf("%s-r%d", strings.NewReplacer(" ", "", ",", "-").Replace(name), i)))
	}
	h.awaitReady(ps...)
	h.waitFor(name+": every bucket held, watched and synced", 5*time.Minute, h.settled)
	h.waitFor(name+": every object reconciled", 5*time.Minute, func() bool { return len(lost(h.events[began:], h.final)) == 0 })
	before, changed := h.stats(ps), h.changes()
	if len(h.objects) > 0 {
		h.updateEvery(5 * time.Millisecond)
		h.run(10 * time.Second)
		h.stopUpdates()
		h.run(2 * time.Second) // the last changes reach the watches
	}
	after := h.stats(ps)
	out := make([]replicaStats, len(ps))
	for i := range ps {
		out[i] = replicaStats{Event: after[i], changeBytes: after[i].Bytes - before[i].Bytes, changes: h.changes() - changed}
		out[i].Events -= before[i].Events
		out[i].Filtered -= before[i].Filtered
	}
	return out
}

// stats asks each of ps for its Stats (SIGHUP) and returns them.
func (h *harness) stats(ps []*proc) []record.Event {
	h.t.Helper()
	asked := record.Now()
	for _, p := range ps {
		p.cmd.Process.Signal(syscall.SIGHUP)
	}
	out := make([]record.Event, len(ps))
	h.waitFor("stats", time.Minute, func() bool {
		for i, p := range ps {
			for _, e := range h.events {
				if e.Kind == record.Stats && e.Replica == p.name && e.At >= asked {
					out[i] = e
				}
			}
			if out[i].Kind == "" {
				return false
			}
		}
		return true
	})
	return out
}

// handOverFigures stops the busiest live replica gracefully and then kills the next
// busiest, measuring how soon the others serve their buckets, watches restarted included.
func (h *harness) handOverFigures() {
	victim := h.busiest()
	buckets := lastHeld(h.events, victim.name, record.Now())
	at := h.leave(victim)
	h.measureServed("graceful hand-over, watch restarted", victim.name, buckets, at, 2*h.tm.lease+30*time.Second)
	h.waitFor("every bucket held, watched and synced after the hand-over", time.Minute, h.settled)
	victim = h.busiest()
	buckets = lastHeld(h.events, victim.name, record.Now())
	at = h.kill(victim)
	h.measureServed("crash to served, watch restarted", victim.name, buckets, at, 3*h.tm.lease+30*time.Second)
	var synced []time.Duration
	for _, e := range h.events {
		if e.Kind == record.Synced && e.At > at {
			synced = append(synced, e.Drain)
		}
	}
	if len(synced) > 0 {
		slices.Sort(synced)
		figure(h.t, "bucket acquired to watch synced, after the crash", "median %v, most %v, of %d buckets of ~%d objects",
			synced[len(synced)/2].Round(time.Millisecond), synced[len(synced)-1].Round(time.Millisecond), len(synced), len(h.final)/h.buckets)
	}
}

// settled reports whether the live replicas hold the buckets evenly and, if they shard their
// watch, each watches the buckets it holds: no bucket is moving.
func (h *harness) settled() bool {
	return balanced(holdings(h.events, h.live(), record.Now()), h.buckets) && (!h.shardedWatch() || h.watchesHeld())
}
