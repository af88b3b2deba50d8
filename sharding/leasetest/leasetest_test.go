package leasetest

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ptr[T any](v T) *T { return &v }

func leases(s *Server) coordinationv1client.LeaseInterface {
	return s.Clientset(nil).CoordinationV1().Leases("ns")
}

func newLease(name string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("a"), LeaseDurationSeconds: ptr[int32](15)},
	}
}

// TestPreferredHolderWithoutGate checks what a kube-apiserver with default feature gates does
// with spec.preferredHolder and spec.strategy: it drops them from creates and updates, unless
// the stored Lease has them already, and answers 200.
func TestPreferredHolderWithoutGate(t *testing.T) {
	ctx := context.Background()
	c := leases(NewServer())
	lease := newLease("x")
	lease.Spec.PreferredHolder = ptr("b")
	lease.Spec.Strategy = ptr(coordinationv1.OldestEmulationVersion)
	created, err := c.Create(ctx, lease, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.Spec.PreferredHolder != nil || created.Spec.Strategy != nil {
		t.Errorf("create kept preferredHolder %v, strategy %v; the gate is off", created.Spec.PreferredHolder, created.Spec.Strategy)
	}
	created.Spec.PreferredHolder = ptr("b")
	updated, err := c.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.Spec.PreferredHolder != nil {
		t.Errorf("update kept preferredHolder %q; the gate is off", *updated.Spec.PreferredHolder)
	}
	if updated.ResourceVersion != created.ResourceVersion {
		t.Errorf("an update that changed nothing once the field was dropped moved the resourceVersion %s → %s", created.ResourceVersion, updated.ResourceVersion)
	}
}

// TestPreferredHolderWithGate checks the gate on: preferredHolder needs a strategy (422), and
// with one it is stored.
func TestPreferredHolderWithGate(t *testing.T) {
	ctx := context.Background()
	c := leases(NewServer(WithCoordinatedLeaderElection()))
	created, err := c.Create(ctx, newLease("x"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Spec.PreferredHolder = ptr("b")
	if _, err := c.Update(ctx, created, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("preferredHolder without strategy: %v, want 422 Invalid", err)
	}
	created.Spec.Strategy = ptr(coordinationv1.OldestEmulationVersion)
	updated, err := c.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("preferredHolder with a strategy: %v", err)
	}
	if updated.Spec.PreferredHolder == nil || *updated.Spec.PreferredHolder != "b" {
		t.Errorf("preferredHolder = %v, want b", updated.Spec.PreferredHolder)
	}
	created.Spec.Strategy = ptr[coordinationv1.CoordinatedLeaseStrategy]("Youngest")
	created.ResourceVersion = updated.ResourceVersion
	if _, err := c.Update(ctx, created, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("unknown strategy: %v, want 422 Invalid", err)
	}
}

// TestStoredPreferredHolderSurvivesWithoutGate checks the other half of PrepareForUpdate: a
// field the stored Lease has is kept by an update even with the gate off.
func TestStoredPreferredHolderSurvivesWithoutGate(t *testing.T) {
	ctx := context.Background()
	s := NewServer()
	lease := newLease("x")
	lease.Spec.PreferredHolder = ptr("b")
	lease.Spec.Strategy = ptr(coordinationv1.OldestEmulationVersion)
	lease.Namespace = "ns"
	s.mu.Lock()
	s.store(lease) // stored while the gate was on, say
	s.mu.Unlock()
	got, err := leases(s).Get(ctx, "x", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.PreferredHolder = ptr("c")
	updated, err := leases(s).Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Spec.PreferredHolder == nil || *updated.Spec.PreferredHolder != "c" {
		t.Errorf("preferredHolder = %v, want c: the stored Lease had one", updated.Spec.PreferredHolder)
	}
}

func TestResourceVersions(t *testing.T) {
	ctx := context.Background()
	c := leases(NewServer())
	withRV := newLease("x")
	withRV.ResourceVersion = "7"
	if _, err := c.Create(ctx, withRV, metav1.CreateOptions{}); !apierrors.IsInternalError(err) {
		t.Errorf("create with a resourceVersion: %v, want 500", err)
	}
	created, err := c.Create(ctx, newLease("x"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.CreationTimestamp.IsZero() {
		t.Errorf("created Lease has uid %q, creationTimestamp %v; want both set", created.UID, created.CreationTimestamp)
	}
	if _, err := c.Create(ctx, newLease("x"), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v, want 409 AlreadyExists", err)
	}
	unversioned := created.DeepCopy()
	unversioned.ResourceVersion = ""
	if _, err := c.Update(ctx, unversioned, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("update without a resourceVersion: %v, want 422 Invalid", err)
	}
	renewed := created.DeepCopy()
	renewed.Spec.RenewTime = &metav1.MicroTime{Time: time.Date(2030, 1, 2, 3, 4, 5, 123456789, time.UTC)}
	updated, err := c.Update(ctx, renewed, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := updated.Spec.RenewTime.Nanosecond(), 123456000; got != want {
		t.Errorf("renewTime stored with %d ns, want %d: microseconds, as MicroTime travels", got, want)
	}
	if updated.UID != created.UID || !updated.CreationTimestamp.Equal(&created.CreationTimestamp) {
		t.Error("an update changed the uid or creationTimestamp")
	}
	if _, err := c.Update(ctx, renewed, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update with a stale resourceVersion: %v, want 409 Conflict", err)
	}
	zero := updated.DeepCopy()
	zero.Spec.LeaseDurationSeconds = ptr[int32](0)
	if _, err := c.Update(ctx, zero, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("leaseDurationSeconds 0: %v, want 422 Invalid", err)
	}
	missing := newLease("y")
	missing.ResourceVersion = "3"
	if _, err := c.Update(ctx, missing, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update of a missing Lease: %v, want it created", err)
	}
}

func TestValidatesMetadata(t *testing.T) {
	ctx := context.Background()
	c := leases(NewServer())
	bad := newLease("Not_A_Name")
	if _, err := c.Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("create named %q: %v, want 422 Invalid", bad.Name, err)
	}
	lease := newLease("x")
	lease.Annotations = map[string]string{"not a key!": "v"}
	if _, err := c.Create(ctx, lease, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("create with annotation key %q: %v, want 422 Invalid", "not a key!", err)
	}
}

func TestListSelectsLabels(t *testing.T) {
	ctx := context.Background()
	c := leases(NewServer())
	for _, name := range []string{"a", "b"} {
		if _, err := c.Create(ctx, newLease(name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := c.List(ctx, metav1.ListOptions{LabelSelector: "app=b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "b" {
		t.Errorf("list app=b returned %d Leases, want only b", len(list.Items))
	}
}

// TestDeletePreconditions checks a delete as kube-apiserver answers it: 404 for a Lease that
// does not exist, 409 when a precondition names another resourceVersion or uid, and gone
// after one that holds.
func TestDeletePreconditions(t *testing.T) {
	ctx := context.Background()
	c := leases(NewServer())
	if err := c.Delete(ctx, "x", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("delete of a missing Lease: %v, want 404", err)
	}
	created, err := c.Create(ctx, newLease("x"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale, other := "0", created.UID+"-other"
	for _, p := range []metav1.Preconditions{{ResourceVersion: &stale}, {UID: &other}} {
		if err := c.Delete(ctx, "x", metav1.DeleteOptions{Preconditions: &p}); !apierrors.IsConflict(err) {
			t.Fatalf("delete with precondition %+v: %v, want 409", p, err)
		}
	}
	if err := c.Delete(ctx, "x", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &created.ResourceVersion, UID: &created.UID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "x", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after the delete: %v, want 404", err)
	}
}
