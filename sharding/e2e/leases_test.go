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
)

// leaseVersion is one version of a bucket's Lease as the harness's watch saw it.
type leaseVersion struct {
	bucket  int
	holder  string
	acquire time.Time // spec.acquireTime: the acquiring replica's clock when it wrote it
	renew   time.Time // spec.renewTime: the holder's clock when its last renewal began
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
	v := leaseVersion{bucket: bucket}
	if lease.Spec.HolderIdentity != nil {
		v.holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.AcquireTime != nil {
		v.acquire = lease.Spec.AcquireTime.Time
	}
	if lease.Spec.RenewTime != nil {
		v.renew = lease.Spec.RenewTime.Time
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
	renewed  time.Time // the previous holder's last renewal began
	acquired time.Time // the new holder's acquiring write began
}

// takeovers returns each change of a Lease's holder from one replica straight to another, in
// the order seen. A release (holder emptied, then acquired) is not one.
func takeovers(versions []leaseVersion) []takeover {
	last := make(map[int]leaseVersion)
	var out []takeover
	for _, v := range versions {
		prev, seen := last[v.bucket]
		last[v.bucket] = v
		if seen && prev.holder != "" && v.holder != "" && v.holder != prev.holder {
			out = append(out, takeover{bucket: v.bucket, from: prev.holder, to: v.holder, renewed: prev.renew, acquired: v.acquire})
		}
	}
	return out
}

// early returns the takeovers that began less than window after the previous holder's last
// renewal began: while that holder, by the package's bound, may still act on the bucket.
// Both instants come from clocks of this one machine.
func early(ts []takeover, window time.Duration) []takeover {
	var out []takeover
	for _, t := range ts {
		if t.acquired.Sub(t.renewed) < window {
			out = append(out, t)
		}
	}
	return out
}
