package sharding

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// TestRenewTimeNeverGoesBack checks that a wall clock stepping back cannot bring back a record
// the others saw long ago (they would count from then): the lock keeps writing its last
// renewTime, so the record stays the same one and the hold window does not move, until the
// wall clock passes it again.
func TestRenewTimeNeverGoesBack(t *testing.T) {
	ctx := context.Background()
	server := leasetest.NewServer()
	s := New(Config{Client: server.Clientset(nil).CoordinationV1(), Namespace: "ns", Name: "w", Identity: "a", Buckets: 1})
	l := newBucketLease(s, 0)
	holdUntil := func() time.Time { return s.tenures[0].Load().Until }
	now := time.Now().Round(0)
	record := func(renew time.Time) resourcelock.LeaderElectionRecord {
		return resourcelock.LeaderElectionRecord{HolderIdentity: "a", LeaseDurationSeconds: 15,
			AcquireTime: metav1.NewTime(now), RenewTime: metav1.NewTime(renew)}
	}
	stored := func() time.Time {
		t.Helper()
		lease, err := server.Clientset(nil).CoordinationV1().Leases("ns").Get(ctx, "w-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return lease.Spec.RenewTime.Time
	}
	if err := l.Create(ctx, record(now)); err != nil {
		t.Fatal(err)
	}
	first := holdUntil()
	if err := l.Update(ctx, record(now.Add(-5*time.Second))); err != nil {
		t.Fatal(err)
	}
	if got := stored(); !got.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("renewTime written %v after a step back, want the last one, %v", got, now)
	}
	if got := holdUntil(); !got.Equal(first) {
		t.Errorf("the hold window moved by %v on a renewal that wrote the same record", got.Sub(first))
	}
	if err := l.Update(ctx, record(now.Add(2*time.Second))); err != nil {
		t.Fatal(err)
	}
	if !holdUntil().After(first) {
		t.Error("the hold window did not move on a renewal that wrote a new record")
	}
}

// TestReleaseRetriesAConflict: a graceful exit whose release meets a conflict (a request
// written between its read and its write, as in CI's crexample) reads the Lease again and
// releases it, rather than leave the bucket to wait out LeaseDuration with nobody on it.
func TestReleaseRetriesAConflict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 1, 10).defaults()
		a := c.join("a")
		c.churn(5*time.Second, 20*time.Millisecond)
		conflicts := 0
		a.link.setReject(func(lease *coordinationv1.Lease) error {
			if holder(lease) != "" || conflicts > 0 {
				return nil
			}
			conflicts++
			return apierrors.NewConflict(leaseResource, lease.Name, errors.New("raced"))
		})
		c.exit(a)
		lease, err := c.api.Clientset(nil).CoordinationV1().Leases(c.cfg.Namespace).Get(context.Background(), c.cfg.Name+"-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if conflicts != 1 {
			t.Fatalf("%d releases met the conflict, want 1", conflicts)
		}
		if h := holder(lease); h != "" {
			t.Errorf("the Lease still names %q after a graceful exit whose first release met a conflict", h)
		}
	})
}
