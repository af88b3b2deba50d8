package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// leaseVersion is one version of a bucket's Lease as the harness's watch saw it.
type leaseVersion struct {
	bucket      int
	holder      string
	acquire     time.Time // spec.acquireTime: the acquiring replica's clock when it wrote it
	renew       time.Time // spec.renewTime: the holder's clock when its last renewal began
	duration    int32     // spec.leaseDurationSeconds
	transitions int32     // spec.leaseTransitions
	// seen is when the harness's watch received it (record.Now): after the API server applied
	// it, and so after the holder began the write the package counts its hold window from.
	seen time.Duration
}

// sameRecord reports whether v and w are one record to client-go's electors, which compare
// the JSON of the leader election record, whose times have whole seconds: a renewal within
// the same second of renewTime changes nothing they can see.
func (v leaseVersion) sameRecord(w leaseVersion) bool {
	return v.holder == w.holder && v.duration == w.duration && v.transitions == w.transitions &&
		v.acquire.Unix() == w.acquire.Unix() && v.renew.Unix() == w.renew.Unix()
}

// leaseLog collects the versions of a scenario's Leases from a watch on the API server. Its
// methods are safe for simultaneous use.
type leaseLog struct {
	mu       sync.Mutex
	versions []leaseVersion
	stop     context.CancelFunc
	done     chan struct{}
	err      error
}

// watchLeases starts recording every version of the scenario's Leases.
func (h *harness) watchLeases() {
	ctx, cancel := context.WithCancel(context.Background())
	w, err := h.client.CoordinationV1().Leases(h.ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		cancel()
		h.t.Fatal(err)
	}
	h.leases = &leaseLog{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.leases.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			if ctx.Err() != nil {
				return // stopped: the watch reports its cancellation as an error
			}
			if ev.Type == watch.Error {
				h.leases.fail(fmt.Errorf("watch error: %v", ev.Object))
				return
			}
			if lease, ok := ev.Object.(*coordinationv1.Lease); ok && ev.Type != watch.Deleted {
				h.leases.add(lease)
			}
		}
		if ctx.Err() == nil {
			h.leases.fail(fmt.Errorf("the watch ended early"))
		}
	}()
}

func (l *leaseLog) add(lease *coordinationv1.Lease) {
	suffix := lease.Name[strings.LastIndexByte(lease.Name, '-')+1:]
	bucket, err := strconv.Atoi(suffix)
	if err != nil {
		return // not a bucket's Lease
	}
	v := leaseVersion{bucket: bucket, seen: record.Now()}
	if lease.Spec.HolderIdentity != nil {
		v.holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.AcquireTime != nil {
		v.acquire = lease.Spec.AcquireTime.Time
	}
	if lease.Spec.RenewTime != nil {
		v.renew = lease.Spec.RenewTime.Time
	}
	if lease.Spec.LeaseDurationSeconds != nil {
		v.duration = *lease.Spec.LeaseDurationSeconds
	}
	if lease.Spec.LeaseTransitions != nil {
		v.transitions = *lease.Spec.LeaseTransitions
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.versions = append(l.versions, v)
}

func (l *leaseLog) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = err
}

// end stops the watch and returns the versions seen, in order, or the watch's error.
func (l *leaseLog) end() ([]leaseVersion, error) {
	l.stop()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.versions, l.err
}

// takeover is a replica acquiring a bucket whose Lease still named another holder.
type takeover struct {
	bucket   int
	from, to string
	// renewed is when the first renewal of the previous holder's last record began: the
	// others count LeaseDuration from when they saw that record, and so does the holder's hold
	// window (the later renewals of the same record, within the same second, change nothing
	// the others can see).
	renewed  time.Time
	acquired time.Time // the new holder's acquiring write began
}

// takeovers returns each change of a Lease's holder from one replica straight to another, in
// the order seen. A release (holder emptied, then acquired) is not one.
func takeovers(versions []leaseVersion) []takeover {
	last := make(map[int]leaseVersion)
	first := make(map[int]leaseVersion) // the first version of the record last seen
	var out []takeover
	for _, v := range versions {
		prev, seen := last[v.bucket]
		prevFirst := first[v.bucket]
		last[v.bucket] = v
		if !seen || !v.sameRecord(prev) {
			first[v.bucket] = v
		}
		if seen && prev.holder != "" && v.holder != "" && v.holder != prev.holder {
			out = append(out, takeover{bucket: v.bucket, from: prev.holder, to: v.holder, renewed: prevFirst.renew, acquired: v.acquire})
		}
	}
	return out
}

// early returns the takeovers that began less than window after the first renewal of the
// previous holder's last record began: while that holder, by the package's bound, may still
// act on the bucket. Both instants come from clocks of this one machine.
func early(ts []takeover, window time.Duration) []takeover {
	var out []takeover
	for _, t := range ts {
		if t.acquired.Sub(t.renewed) < window {
			out = append(out, t)
		}
	}
	return out
}

// lateWrite is a write a reconcile made after the end of its replica's hold on the key's
// bucket, as the Lease's versions bound it: after the hold window, or after the tenure the
// reconcile began in was interrupted.
type lateWrite struct {
	write record.Event
	// windowEnd is the latest instant the write could have been within the window: LeaseDuration
	// less the drift bound after the harness saw the first version of the holder's last record.
	// Zero when the write is late for an interrupted tenure.
	windowEnd time.Duration
	// interrupted is the version that interrupted the reconcile's tenure: the Lease named
	// another holder, or none, after it had named the writer since the reconcile began.
	interrupted *leaseVersion
	started     time.Duration // when the reconcile began
}

// lateWrites returns the writes made after the end of their replica's hold window: the fencing
// promise, checked against the Leases rather than against another replica's reconciles, so
// that it fails even when no other replica took the key in time to meet the write. For each
// write it takes the replica's last record of the bucket that the watch had seen by the
// write's instant, and the first version of that record: the package counts the window from no
// earlier than when that version was written, and the watch saw it after. A write after that
// instant plus window is late. A write made while the last record seen is not its replica's
// (none yet, or the watch has not delivered the record of a holding begun since another
// holder's or a release) is not judged by the window: it is by the tenure rule below, and by
// the overlap check.
//
// A renewal that the watch delivers after a write it allowed does not count for it. That is
// sound: a renewal can let a write past the previous record's window only if its answer came
// before the keys' contexts ended, the drain budget before that window's end, and the watch
// delivers a version long before that (milliseconds here).
//
// A write is late too if, between its reconcile's start and the write, the watch saw the Lease
// name the writer and then another holder or none: the package's tenure rule (a key's hold
// belongs to the tenure it was handed out in, and a tenure never spans another holder), judged
// from the Leases, so that a replica that takes the bucket back cannot lend its new record to
// a reconcile that began before it lost the bucket.
func lateWrites(events []record.Event, versions []leaseVersion, buckets int, window time.Duration) []lateWrite {
	// records[bucket] lists the versions that begin a record, in the order seen.
	records := make(map[int][]leaseVersion)
	last := make(map[int]leaseVersion)
	byBucket := make(map[int][]leaseVersion)
	for _, v := range versions {
		if prev, ok := last[v.bucket]; !ok || !v.sameRecord(prev) {
			records[v.bucket] = append(records[v.bucket], v)
		}
		last[v.bucket] = v
		byBucket[v.bucket] = append(byBucket[v.bucket], v)
	}
	type slot struct{ replica, key string }
	started := make(map[slot]time.Duration)
	var out []lateWrite
	for _, e := range events {
		if e.Kind == record.Start {
			started[slot{e.Replica, e.Key}] = e.At
		}
		if e.Kind != record.Write {
			continue
		}
		start, ok := started[slot{e.Replica, e.Key}]
		if ok {
			if v := interruption(byBucket[bucketOf(e.Key, buckets)], e.Replica, start, e.At); v != nil {
				out = append(out, lateWrite{write: e, interrupted: v, started: start})
				continue
			}
		}
		// The record seen last by the write, if the writer's: a record of the writer's seen
		// before another holder's, or none's, belongs to an earlier holding, and the watch may
		// not have delivered the record of the holding the write belongs to yet.
		var first *leaseVersion
		for i, r := range records[bucketOf(e.Key, buckets)] {
			if r.seen > e.At {
				break
			}
			first = &records[bucketOf(e.Key, buckets)][i]
		}
		if first != nil && first.holder == e.Replica && e.At > first.seen+window {
			out = append(out, lateWrite{write: e, windowEnd: first.seen + window})
		}
	}
	return out
}

// interruption returns the first version of versions (one bucket's, in the order seen) that,
// seen in (from, to], names a holder other than replica, or none, after a version naming
// replica was the latest seen at or after from; or nil.
func interruption(versions []leaseVersion, replica string, from, to time.Duration) *leaseVersion {
	held := false
	for i, v := range versions {
		if v.seen > to {
			break
		}
		if v.seen <= from {
			held = v.holder == replica
			continue
		}
		if v.holder == replica {
			held = true
		} else if held {
			return &versions[i]
		}
	}
	return nil
}

// returnedTo returns the buckets whose Lease, as seen so far, named replica, then another
// holder or none, then replica again.
func (l *leaseLog) returnedTo(replica string) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	stage := make(map[int]int) // 1: named replica; 2: then left it
	var out []int
	for _, v := range l.versions {
		switch s := stage[v.bucket]; {
		case v.holder == replica && s == 2:
			out = append(out, v.bucket)
			stage[v.bucket] = 3
		case v.holder == replica && s == 0:
			stage[v.bucket] = 1
		case v.holder != replica && s == 1:
			stage[v.bucket] = 2
		}
	}
	return out
}

// leaseName is the name of bucket's Lease, as the replicas name it (-name e2e).
func leaseName(bucket int) string { return "e2e-" + strconv.Itoa(bucket) }

// touchLeases writes an annotation on the Lease of each of buckets that still names holder,
// which changes its resourceVersion and not the record the electors compare, and returns the
// buckets whose Lease it wrote.
func (h *harness) touchLeases(holder string, buckets []int) []int {
	h.t.Helper()
	leases := h.client.CoordinationV1().Leases(h.ns)
	var touched []int
	for _, b := range buckets {
		lease, err := leases.Get(context.Background(), leaseName(b), metav1.GetOptions{})
		if err != nil {
			h.t.Fatal(err)
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != holder {
			continue
		}
		if lease.Annotations == nil {
			lease.Annotations = make(map[string]string)
		}
		lease.Annotations["e2e.actorqueue.io/touched"] = strconv.Itoa(int(record.Now()))
		if _, err := leases.Update(context.Background(), lease, metav1.UpdateOptions{}); err != nil {
			h.t.Fatalf("touching %s: %v", lease.Name, err)
		}
		touched = append(touched, b)
	}
	return touched
}

// createLease creates bucket's Lease as a replica named holder would have left it an hour
// ago, when it stopped without releasing it, carrying a hand-over request of requester.
func (h *harness) createLease(bucket int, holder, requester string) {
	h.t.Helper()
	long, seconds := metav1.NewMicroTime(time.Now().Add(-time.Hour)), int32(h.tm.lease/time.Second)
	_, err := h.client.CoordinationV1().Leases(h.ns).Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: leaseName(bucket),
			Labels:      map[string]string{"sharding.actorqueue.io/name": "e2e"},
			Annotations: map[string]string{"sharding.actorqueue.io/requested-by": requester}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds, AcquireTime: &long, RenewTime: &long},
	}, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
}

// releasedAfter returns when the watch first saw bucket's Lease name no holder after after.
func (l *leaseLog) releasedAfter(bucket int, after time.Duration) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, v := range l.versions {
		if v.bucket == bucket && v.seen > after && v.holder == "" {
			return v.seen, true
		}
	}
	return 0, false
}
