package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/actorqueue/workqueue/sharding"
)

// view reads what the replicas did from the API server: the buckets' Leases and the
// ConfigMaps' annotations.
type view struct {
	client    kubernetes.Interface
	namespace string
}

// holders names the holder of each bucket's Lease; "" for a Lease released or not created yet.
type holders []string

// leaseHolders returns the holder of each bucket's Lease as the API server has it now.
func (v view) leaseHolders(ctx context.Context) (holders, error) {
	list, err := v.client.CoordinationV1().Leases(v.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	h := make(holders, buckets)
	for _, lease := range list.Items {
		suffix, ok := strings.CutPrefix(lease.Name, leaseName+"-")
		b, err := strconv.Atoi(suffix)
		if !ok || err != nil || b < 0 || b >= buckets || lease.Spec.HolderIdentity == nil {
			continue
		}
		h[b] = *lease.Spec.HolderIdentity
	}
	return h, nil
}

// of returns the buckets replica holds, in increasing order.
func (h holders) of(replica string) []int {
	var held []int
	for b, holder := range h {
		if holder == replica {
			held = append(held, b)
		}
	}
	return held
}

// balanced returns nil if the replicas hold every bucket between them, each within one bucket
// of the others, and otherwise an error saying how far they are from it.
func (h holders) balanced(replicas []string) error {
	fewest, most := buckets, 0
	for _, r := range replicas {
		n := len(h.of(r))
		fewest, most = min(fewest, n), max(most, n)
	}
	if others := buckets - h.heldBy(replicas); others > 0 || most-fewest > 1 {
		return fmt.Errorf("%s, and %d buckets free or held by others", h.format(replicas), others)
	}
	return nil
}

// heldBy counts the buckets held by one of replicas.
func (h holders) heldBy(replicas []string) int {
	n := 0
	for _, holder := range h {
		if slices.Contains(replicas, holder) {
			n++
		}
	}
	return n
}

// format lists the buckets of each replica: "replica-a [0 3 7 9]  replica-b [1 2 5 11]".
func (h holders) format(replicas []string) string {
	parts := make([]string, 0, len(replicas))
	for _, r := range replicas {
		parts = append(parts, fmt.Sprintf("%s %v", r, h.of(r)))
	}
	return strings.Join(parts, "  ")
}

// configMap is one ConfigMap as the reconciles left it.
type configMap struct {
	name   string
	bucket int    // the bucket of its UID, as the replicas' sharded caches select it
	gen    string // the generation the orchestration wrote last
	// by and reconciled are the replica that reconciled it last and the generation it did.
	by, reconciled string
}

// configMaps returns the ConfigMaps of the namespace, by name.
func (v view) configMaps(ctx context.Context) ([]configMap, error) {
	list, err := v.client.CoreV1().ConfigMaps(v.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var cms []configMap
	for _, cm := range list.Items {
		if _, ours := cm.Data[genKey]; !ours {
			continue // kube-root-ca.crt, which every namespace gets
		}
		// The replicas shard their watch by UID: a ConfigMap's bucket is its UID's.
		cms = append(cms, configMap{name: cm.Name, bucket: sharding.BucketOf(sharding.Hash(string(cm.UID)), buckets),
			gen: cm.Data[genKey], by: cm.Annotations[annotationBy], reconciled: cm.Annotations[annotationGen]})
	}
	slices.SortFunc(cms, func(a, b configMap) int { return strings.Compare(a.name, b.name) })
	return cms, nil
}

// reconciledByHolders returns nil if every ConfigMap is reconciled at generation gen, by the
// replica that holds its bucket now, and otherwise an error naming the first that is not.
func (v view) reconciledByHolders(ctx context.Context, gen string) error {
	h, err := v.leaseHolders(ctx)
	if err != nil {
		return err
	}
	cms, err := v.configMaps(ctx)
	if err != nil {
		return err
	}
	for _, cm := range cms {
		if cm.reconciled != gen {
			return fmt.Errorf("%s (bucket %d, held by %q) is reconciled at gen %q, not %s", cm.name, cm.bucket, h[cm.bucket], cm.reconciled, gen)
		}
		if cm.by != h[cm.bucket] {
			return fmt.Errorf("%s was reconciled by %s, but its bucket %d is held by %q", cm.name, cm.by, cm.bucket, h[cm.bucket])
		}
	}
	return nil
}

// waitFor calls cond every 25 ms until it returns nil, and returns how long that took; or, if
// timeout passes first, an error naming what did not happen and cond's last error.
func waitFor(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) error) (time.Duration, error) {
	start := time.Now()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		err := cond(ctx)
		switch {
		case err == nil:
			return time.Since(start), nil
		case time.Since(start) > timeout:
			return 0, fmt.Errorf("%s did not happen within %v: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("interrupted while waiting for %s", what)
		case <-tick.C:
		}
	}
}
