package sharding

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// failures records RequestFailed calls; it is a Metrics that implements FailureMetrics.
type failures struct {
	noMetrics
	mu  sync.Mutex
	ops map[string][]error
}

func (f *failures) RequestFailed(op string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops[op] = append(f.ops[op], err)
}

// TestAskFailureSurfaces checks that a request for a bucket that the server refuses other than
// by a conflict reaches FailureMetrics (and the log), and that conflicts do not.
func TestAskFailureSurfaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 4, 10).defaults()
		a := c.join("a")
		c.churn(5*time.Second, 50*time.Millisecond)

		f := &failures{ops: make(map[string][]error)}
		c.cfg.Metrics = f // join sets its own Metrics: build this replica by hand
		r := &replica{c: c, id: "b", ran: make(chan struct{})}
		r.link = &link{inner: c.api.Clientset(nil).CoordinationV1()}
		refused := apierrors.NewInvalid(coordinationv1.SchemeGroupVersion.WithKind("Lease").GroupKind(), "x", nil)
		asks := 0
		r.link.setReject(func(lease *coordinationv1.Lease) error {
			if lease.Annotations[annotationRequest] != "b" || holder(lease) == "b" {
				return nil
			}
			asks++
			if asks == 1 {
				return apierrors.NewConflict(leaseResource, lease.Name, errors.New("raced"))
			}
			return refused
		})
		cfg := c.cfg
		cfg.Client, cfg.Identity = r.link, r.id
		s := New(cfg)
		ctx, stop := context.WithCancel(context.Background())
		go func() {
			defer close(r.ran)
			s.Run(ctx)
		}()
		time.Sleep(5*c.cfg.RetryPeriod + c.cfg.RetryPeriod/2) // between two looks
		stop()
		<-r.ran

		f.mu.Lock()
		defer f.mu.Unlock()
		if asks < 2 {
			t.Fatalf("b asked %d times, want a conflict and then more", asks)
		}
		if len(f.ops["ask"]) != asks-1 {
			t.Errorf("%d failed asks reported for %d refusals (and one conflict)", len(f.ops["ask"]), asks-1)
		}
		for _, err := range f.ops["ask"] {
			if !apierrors.IsInvalid(err) {
				t.Errorf("reported %v, want the 422", err)
			}
		}
		c.exit(a)
	})
}

var leaseResource = coordinationv1.Resource("leases")
