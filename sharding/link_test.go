package sharding

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// link is one replica's connection to the API server, with the faults the tests inject into
// its Lease requests:
//
//   - cut: every request fails with 503, as the Lease server's own cut does;
//   - late: a write is applied by the server at once, but its answer reaches the replica
//     late(), or never if the request's context ends first (a client-side timeout);
//   - seconds: the replica's clock runs fast, which the tests show to client-go's elector, whose
//     clock cannot be replaced, as Leases of shorter duration: 11 s of Lease on a clock 1.1
//     times as fast last 10 s (see fastClock);
//   - gate: a paused process sends nothing and reads no answer until it resumes;
//   - reject: an update it returns an error for fails with that error, unsent.
type link struct {
	inner coordinationv1client.LeasesGetter
	cut   atomic.Bool
	gate  gate

	mu      sync.Mutex
	late    func() time.Duration
	seconds func(int32) int32
	reject  func(*coordinationv1.Lease) error
}

func (l *link) Leases(namespace string) coordinationv1client.LeaseInterface {
	return linkLeases{LeaseInterface: l.inner.Leases(namespace), link: l}
}

// faults returns the link's current faults.
func (l *link) faults() (late func() time.Duration, seconds func(int32) int32, reject func(*coordinationv1.Lease) error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.late, l.seconds, l.reject
}

// setReject makes the updates for which reject returns an error fail with it.
func (l *link) setReject(reject func(*coordinationv1.Lease) error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reject = reject
}

// setLate makes the answers of the replica's writes late by late(), or on time if nil.
func (l *link) setLate(late func() time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.late = late
}

// fastClock shows the replica's elector every Lease duration divided by num/den, as a clock
// running num/den times as fast sees it; the tests pick durations it divides exactly.
func (l *link) fastClock(num, den int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seconds = func(s int32) int32 {
		if s*den%num != 0 {
			return s // e.g. a released Lease's 1 s: it is free anyway
		}
		return s * den / num
	}
}

// linkLeases is a LeaseInterface through a link.
type linkLeases struct {
	coordinationv1client.LeaseInterface
	link *link
}

// send passes the gate and the cut on the way out.
func (c linkLeases) send() error {
	c.link.gate.pass()
	if c.link.cut.Load() {
		return apierrors.NewServiceUnavailable("link: cut off")
	}
	return nil
}

// receive delays the answer of a write as the link says, then passes the gate on the way in.
func (c linkLeases) receive(ctx context.Context, write bool) error {
	if late, _, _ := c.link.faults(); write && late != nil {
		timer := time.NewTimer(late())
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.link.gate.pass()
	return nil
}

// seen adjusts a Lease read as the replica's clock sees it.
func (c linkLeases) seen(lease *coordinationv1.Lease) {
	if _, seconds, _ := c.link.faults(); seconds != nil && lease.Spec.LeaseDurationSeconds != nil {
		d := seconds(*lease.Spec.LeaseDurationSeconds)
		lease.Spec.LeaseDurationSeconds = &d
	}
}

func (c linkLeases) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	if err := c.send(); err != nil {
		return nil, err
	}
	lease, err := c.LeaseInterface.Get(ctx, name, opts)
	if rerr := c.receive(ctx, false); rerr != nil {
		return nil, rerr
	}
	if err == nil {
		c.seen(lease)
	}
	return lease, err
}

func (c linkLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	if err := c.send(); err != nil {
		return nil, err
	}
	list, err := c.LeaseInterface.List(ctx, opts)
	if rerr := c.receive(ctx, false); rerr != nil {
		return nil, rerr
	}
	if err == nil {
		for i := range list.Items {
			c.seen(&list.Items[i])
		}
	}
	return list, err
}

func (c linkLeases) Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error) {
	if err := c.send(); err != nil {
		return nil, err
	}
	created, err := c.LeaseInterface.Create(ctx, lease, opts)
	if rerr := c.receive(ctx, true); rerr != nil {
		return nil, rerr
	}
	return created, err
}

func (c linkLeases) Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if err := c.send(); err != nil {
		return nil, err
	}
	if _, _, reject := c.link.faults(); reject != nil {
		if err := reject(lease); err != nil {
			return nil, err
		}
	}
	updated, err := c.LeaseInterface.Update(ctx, lease, opts)
	if rerr := c.receive(ctx, true); rerr != nil {
		return nil, rerr
	}
	return updated, err
}

func (c linkLeases) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := c.send(); err != nil {
		return err
	}
	err := c.LeaseInterface.Delete(ctx, name, opts)
	if rerr := c.receive(ctx, true); rerr != nil {
		return rerr
	}
	return err
}

// gate stops the goroutines that pass it while it is closed: a paused process.
type gate struct {
	mu     sync.Mutex
	closed chan struct{} // nil while open
}

// pass waits while the gate is closed.
func (g *gate) pass() {
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed != nil {
		<-closed
	}
}

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed != nil {
		panic("gate closed twice")
	}
	g.closed = make(chan struct{})
}

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.closed)
	g.closed = nil
}
