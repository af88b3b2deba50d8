package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
)

const (
	namespace  = "crexample"
	configMaps = 24
)

// The deadlines of the steps. Each is several times what the step takes on a 2-core machine.
const (
	balanceTimeout   = 30 * time.Second // three replicas starting, until they share the buckets
	reconcileTimeout = 15 * time.Second // a change of every ConfigMap, until each is reconciled
	handoverTimeout  = 15 * time.Second // a SIGTERM, until the others hold the leaver's buckets
	exitTimeout      = 15 * time.Second // a SIGTERM, until the replica has exited
)

// run is one run of the example: its directory, the API server and the replicas.
type run struct {
	dir      string
	cluster  *cluster.Cluster
	token    string // the replicas' credential: the ServiceAccount of the sharding module's rbac.yaml
	view     view
	replicas []*process
}

// orchestrate runs the example; see the package documentation. It removes its directory at
// the end unless keep is set or the example failed.
func orchestrate(keep bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := os.MkdirTemp("", "crexample-")
	if err != nil {
		return err
	}
	r := &run{dir: dir}
	err = r.steps(ctx)
	for _, p := range r.replicas {
		p.kill() // those still running after a failure
	}
	if r.cluster != nil {
		r.cluster.Stop()
	}
	if err != nil {
		return fmt.Errorf("%w\nThe replicas' logs and kube-apiserver's are kept in %s", err, dir)
	}
	if keep {
		say("kept %s", dir)
		return nil
	}
	return os.RemoveAll(dir)
}

// steps runs the steps of the example in order, and returns the first failure.
func (r *run) steps(ctx context.Context) error {
	for _, step := range []func(context.Context) error{r.startCluster, r.startReplicas, r.reconcileOnHolders, r.handOver, r.stopAll} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// startCluster starts kube-apiserver and creates the namespace and its ConfigMaps.
func (r *run) startCluster(ctx context.Context) error {
	say("kube-apiserver: built by the Go command unless cached (the first run takes minutes)")
	binary, err := cluster.ToolPath(ctx, ".", "kube-apiserver")
	if err != nil {
		return fmt.Errorf("%w (run this from sharding/e2e, with GOWORK=off)", err)
	}
	say("kube-apiserver executable ready; starting it, with sharded list and watch on (feature gate ShardedListAndWatch)")
	if r.cluster, err = cluster.Start(ctx, cluster.Options{Binary: binary, Dir: r.dir, FeatureGates: "ShardedListAndWatch=true"}); err != nil {
		return err
	}
	say("kube-apiserver serving at %s, on an etcd embedded in this process", r.cluster.URL)
	cfg := r.cluster.Config("")
	cfg.QPS, cfg.Burst = 100, 200 // this program polls the Leases
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	r.view = view{client: client, namespace: namespace}
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	for i := range configMaps {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}, Data: map[string]string{genKey: "1"}}
		if _, err := client.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	say("namespace %s: %d ConfigMaps, cm-00 to cm-%02d, at gen 1; %d buckets (Leases %s-0 to -%d)",
		namespace, configMaps, configMaps-1, buckets, leaseName, buckets-1)
	if r.token, err = r.cluster.ServiceAccount(ctx, namespace, allowUpdates); err != nil {
		return err
	}
	say("the replicas run as the ServiceAccount of sharding/deploy/rbac.yaml, under its Roles (and update on ConfigMaps, the reconciler's own)")
	return nil
}

// allowUpdates adds to rbac.yaml's Role for the watched objects what this controller's
// reconciler does besides: update the ConfigMaps it reconciles.
func allowUpdates(obj runtime.Object) {
	if role, ok := obj.(*rbacv1.Role); ok && role.Name == "my-controller-objects" {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"update"}})
	}
}

// startReplicas starts three replicas and waits until they share the buckets evenly.
func (r *run) startReplicas(ctx context.Context) error {
	for _, name := range []string{"replica-a", "replica-b", "replica-c"} {
		p, err := startReplica(r.dir, name, r.cluster, r.token, namespace)
		if err != nil {
			return err
		}
		r.replicas = append(r.replicas, p)
	}
	say("started replica-a, replica-b and replica-c (their logs: %s/replica-*.log)", r.dir)
	say("each campaigns for the buckets up to its fair share; one that holds too few asks the busiest for one,")
	say("which hands it over once its reconciles in progress are done, and releases its Lease")
	names := r.names()
	h, took, err := r.awaitBalance(ctx, balanceTimeout, "an even share of the buckets", names)
	if err != nil {
		return err
	}
	say("balanced %v after the start: %s", took.Round(time.Millisecond), h.format(names))
	return nil
}

// reconcileOnHolders changes every ConfigMap and waits until the replica holding its bucket
// has reconciled it.
func (r *run) reconcileOnHolders(ctx context.Context) error {
	return r.changeAll(ctx, "2", nil)
}

// handOver stops one replica with SIGTERM, waits until the two others hold its buckets, evenly,
// and changes every ConfigMap again, to show that its ConfigMaps are now theirs.
func (r *run) handOver(ctx context.Context) error {
	leaver, survivors := r.replicas[1], r.names()
	survivors = slices.DeleteFunc(survivors, func(name string) bool { return name == leaver.name })
	before, err := r.view.leaseHolders(ctx)
	if err != nil {
		return err
	}
	left := before.of(leaver.name)
	say("SIGTERM to %s, which holds buckets %v", leaver.name, left)
	leaver.term()
	took, err := waitFor(ctx, handoverTimeout, "the hand-over of "+leaver.name+"'s buckets", func(ctx context.Context) error {
		h, err := r.view.leaseHolders(ctx)
		if err != nil {
			return err
		}
		if others := buckets - h.heldBy(survivors); others > 0 {
			return fmt.Errorf("%d buckets free or held by %s", others, leaver.name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	say("%s's buckets all held by the others %v after the SIGTERM", leaver.name, took.Round(time.Millisecond))
	h, more, err := r.awaitBalance(ctx, handoverTimeout, "an even share of the buckets between the others", survivors)
	if err != nil {
		return err
	}
	say("balanced %v later: %s", more.Round(time.Millisecond), h.format(survivors))
	if err := leaver.wait(exitTimeout); err != nil {
		return err
	}
	say("%s exited with status 0", leaver.name)
	return r.changeAll(ctx, "3", left)
}

// stopAll stops the remaining replicas together and checks that they released every Lease.
func (r *run) stopAll(ctx context.Context) error {
	var running []*process
	for _, p := range r.replicas {
		select {
		case <-p.exited:
		default:
			running = append(running, p)
			p.term()
		}
	}
	start := time.Now()
	for _, p := range running {
		if err := p.wait(exitTimeout); err != nil {
			return err
		}
	}
	h, err := r.view.leaseHolders(ctx)
	if err != nil {
		return err
	}
	if held := buckets - len(h.of("")); held > 0 {
		return fmt.Errorf("%d Leases still name a holder after every replica exited: %v", held, h)
	}
	say("SIGTERM to the others: exited %v later, every Lease released", time.Since(start).Round(time.Millisecond))
	return nil
}

// changeAll sets every ConfigMap's generation to gen, waits until each is reconciled at gen by
// the replica holding its bucket, and prints who reconciled what. If moved is not nil, it
// prints only the ConfigMaps of those buckets.
func (r *run) changeAll(ctx context.Context, gen string, moved []int) error {
	patch := []byte(fmt.Sprintf(`{"data":{%q:%q}}`, genKey, gen))
	for i := range configMaps {
		name := fmt.Sprintf("cm-%02d", i)
		if _, err := r.view.client.CoreV1().ConfigMaps(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return err
		}
	}
	took, err := waitFor(ctx, reconcileTimeout, "the reconcile of every ConfigMap at gen "+gen, func(ctx context.Context) error {
		return r.view.reconciledByHolders(ctx, gen)
	})
	if err != nil {
		return err
	}
	h, err := r.view.leaseHolders(ctx)
	if err != nil {
		return err
	}
	cms, err := r.view.configMaps(ctx)
	if err != nil {
		return err
	}
	byReplica := make(map[string][]string)
	for _, cm := range cms {
		if moved == nil || slices.Contains(moved, cm.bucket) {
			byReplica[cm.by] = append(byReplica[cm.by], cm.name)
		}
	}
	if moved == nil {
		say("changed every ConfigMap to gen %s: each reconciled %v later by the holder of its bucket:", gen, took.Round(time.Millisecond))
	} else {
		say("changed every ConfigMap to gen %s: reconciled %v later; those of buckets %v now by:", gen, took.Round(time.Millisecond), moved)
	}
	for _, name := range r.names() {
		if reconciled := byReplica[name]; len(reconciled) > 0 {
			say("    %s %v: %s", name, h.of(name), strings.Join(reconciled, " "))
		}
	}
	if len(byReplica) == 0 {
		say("    (no ConfigMap falls in those buckets)")
	}
	return nil
}

// awaitBalance waits, up to timeout, until replicas hold every bucket between them, evenly
// (see holders.balanced), and returns the holders then and how long it took.
func (r *run) awaitBalance(ctx context.Context, timeout time.Duration, what string, replicas []string) (holders, time.Duration, error) {
	var h holders
	took, err := waitFor(ctx, timeout, what, func(ctx context.Context) error {
		var err error
		if h, err = r.view.leaseHolders(ctx); err != nil {
			return err
		}
		return h.balanced(replicas)
	})
	return h, took, err
}

// names returns the replicas' names.
func (r *run) names() []string {
	names := make([]string, 0, len(r.replicas))
	for _, p := range r.replicas {
		names = append(names, p.name)
	}
	return names
}
