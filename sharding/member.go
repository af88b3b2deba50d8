package sharding

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A replica announces itself with a member Lease, "<Name>-r<hash of Identity>", which names
// it as holder, from its start until it leaves: the others count it live before it holds a
// bucket (timing.Census), so that replicas starting together compute their fair shares among
// all of them. Run writes it, waits one RetryPeriod (every replica lists the Leases that
// often, so those that start with it have announced themselves by then), looks, and only then
// campaigns; the balancer renews it every RetryPeriod; Run deletes it once every bucket is
// handed back. The Lease of a replica that crashed stays until the others see it unchanged for
// two LeaseDurations and delete it (timing.Census.Departed). It costs one request per
// RetryPeriod, and the "delete" verb on Leases.

// labelMember marks a member Lease.
const labelMember = "sharding.actorqueue.io/member"

// memberLeaseName is the name of the member Lease of the replica identity: the identity need
// not be a valid name.
func memberLeaseName(name, identity string) string {
	return fmt.Sprintf("%s-r%016x", name, Hash(identity))
}

// presence is this replica's member Lease. It belongs to the goroutine that runs the
// balancer (and Run before and after it).
type presence struct {
	s     *Sharder
	name  string
	lease *coordinationv1.Lease // as last written; nil to read it again
}

// announce creates or renews the member Lease with this replica's clock as its renewTime.
func (p *presence) announce(ctx context.Context) error {
	leases := p.s.cfg.Client.Leases(p.s.cfg.Namespace)
	if p.lease == nil {
		current, err := leases.Get(ctx, p.name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if err == nil {
			p.lease = current // left by an earlier run under the same identity
		}
	}
	identity, seconds := p.s.cfg.Identity, int32(p.s.cfg.LeaseDuration/time.Second)
	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: p.s.cfg.Namespace, Name: p.name}}
	if p.lease != nil {
		lease = p.lease.DeepCopy()
	}
	lease.Labels = map[string]string{labelName: p.s.cfg.Name, labelMember: "true"}
	lease.Spec = coordinationv1.LeaseSpec{HolderIdentity: &identity, LeaseDurationSeconds: &seconds, RenewTime: &now}
	var written *coordinationv1.Lease
	var err error
	if p.lease == nil {
		written, err = leases.Create(ctx, lease, metav1.CreateOptions{})
	} else {
		written, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
	}
	p.lease = written // nil on an error: read it again next time
	return err
}

// withdraw deletes the member Lease, so that the others stop counting this replica at once.
func (p *presence) withdraw(ctx context.Context) error {
	err := p.s.cfg.Client.Leases(p.s.cfg.Namespace).Delete(ctx, p.name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// clear deletes the member Leases the census found departed, each at the version listed, so
// that a replica that renews it meanwhile keeps it.
func (s *Sharder) clear(ctx context.Context, departed []string, byName map[string]*coordinationv1.Lease) {
	for _, name := range departed {
		rv := byName[name].ResourceVersion
		err := s.cfg.Client.Leases(s.cfg.Namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
			s.failed(ctx, "delete", s.cfg.Namespace+"/"+name, err)
		}
	}
}
