package sharding

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// TestForbiddenLeaseRequestSurfaces checks that each verb on Leases the sharder uses, when the
// replica's Role lacks it, is reported to FailureMetrics with its op and the server's
// Forbidden, which names the verb and the Lease, within a few RetryPeriods: a replica that may
// not renew its Leases must say so, not hold nothing in silence.
func TestForbiddenLeaseRequestSurfaces(t *testing.T) {
	for _, verb := range []string{"get", "create", "update", "list"} {
		t.Run(verb, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &failures{ops: make(map[string][]error)}
				s := New(Config{
					Client:    forbidding{leasetest.NewServer().Clientset(nil).CoordinationV1(), verb},
					Namespace: "ns", Name: "c", Identity: "a", Buckets: 2,
					LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond,
					Metrics: f,
				})
				ctx, stop := context.WithCancel(context.Background())
				ran := make(chan struct{})
				go func() {
					defer close(ran)
					s.Run(ctx)
				}()
				// update: the Lease is created, held, and its first renewal refused.
				time.Sleep(time.Second)
				stop()
				<-ran

				f.mu.Lock()
				defer f.mu.Unlock()
				if len(f.ops[verb]) == 0 {
					t.Fatalf("no %q failure reported; reported: %v", verb, f.ops)
				}
				for _, err := range f.ops[verb] {
					if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "cannot "+verb) {
						t.Errorf("reported %v, want the server's Forbidden for %s", err, verb)
					}
					if verb != "list" && verb != "create" && !strings.Contains(err.Error(), `"c-`) {
						t.Errorf("reported %v, which names no Lease", err)
					}
				}
			})
		})
	}
}

// forbidding is a Lease client whose server refuses one verb, as kube-apiserver's RBAC
// refuses a verb the replica's Role lacks.
type forbidding struct {
	coordinationv1client.LeasesGetter
	verb string
}

func (f forbidding) Leases(namespace string) coordinationv1client.LeaseInterface {
	return forbiddingLeases{f.LeasesGetter.Leases(namespace), f.verb}
}

type forbiddingLeases struct {
	coordinationv1client.LeaseInterface
	verb string
}

// refuse returns the Forbidden that kube-apiserver returns for verb on the Lease name, if
// verb is the one refused.
func (c forbiddingLeases) refuse(verb, name string) error {
	if verb != c.verb {
		return nil
	}
	return apierrors.NewForbidden(leaseResource, name,
		fmt.Errorf(`User "system:serviceaccount:ns:c" cannot %s resource "leases" in API group "coordination.k8s.io" in the namespace "ns"`, verb))
}

func (c forbiddingLeases) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	if err := c.refuse("get", name); err != nil {
		return nil, err
	}
	return c.LeaseInterface.Get(ctx, name, opts)
}

func (c forbiddingLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	if err := c.refuse("list", ""); err != nil {
		return nil, err
	}
	return c.LeaseInterface.List(ctx, opts)
}

func (c forbiddingLeases) Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error) {
	if err := c.refuse("create", ""); err != nil {
		return nil, err
	}
	return c.LeaseInterface.Create(ctx, lease, opts)
}

func (c forbiddingLeases) Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if err := c.refuse("update", lease.Name); err != nil {
		return nil, err
	}
	return c.LeaseInterface.Update(ctx, lease, opts)
}
