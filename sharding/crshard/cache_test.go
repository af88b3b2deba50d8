package crshard

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/leasetest"
	"github.com/actorqueue/workqueue/sharding/shardcache"
)

// configMaps is a ListerWatcher of n ConfigMaps, from a server that ignores shard selectors
// (the informers filter them), whose watches never send anything.
func configMaps(n int) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
			for i := range n {
				list.Items = append(list.Items, corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default",
					Name: fmt.Sprintf("cm-%d", i), UID: types.UID(fmt.Sprintf("uid-%d", i)), ResourceVersion: "1"}})
			}
			return list, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}
}

// TestCacheShardsItsKinds checks what a controller-runtime cache gets from a Cache: a sharded
// informer, with the cache's indexers, for the kinds it shards, a plain one for the others;
// and a queue configuration that lists an acquired bucket's objects as requests and hashes
// each request into its object's bucket.
func TestCacheShardsItsKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const buckets = 4
		s := sharding.New(sharding.Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(),
			Namespace: "ns", Name: "cr", Identity: "a", Buckets: buckets})
		c := NewCache(s, CacheOptions{Objects: []client.Object{&corev1.ConfigMap{}}})
		qc := c.QueueConfig(&corev1.ConfigMap{})
		if got, want := qc.Hash(request("cm-1")), sharding.HashKey("default/cm-1"); got != want {
			t.Errorf("Hash before the informer exists: %x; want HashKey's %x", got, want)
		}
		if plain := c.NewInformer(configMaps(0), &corev1.Secret{}, 0, nil); c.Informer(&corev1.Secret{}) != nil {
			t.Errorf("a kind not sharded got %T", plain)
		}
		made := c.NewInformer(configMaps(40), &corev1.ConfigMap{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		inf, ok := made.(*shardcache.Informer)
		if !ok || c.Informer(&corev1.ConfigMap{}) != inf {
			t.Fatalf("the sharded kind got %T", made)
		}
		if _, ok := inf.GetIndexer().GetIndexers()[cache.NamespaceIndex]; !ok {
			t.Error("the cache's namespace index is missing")
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go inf.RunWithContext(ctx)
		if err := inf.Prepare(ctx, 2); err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := range 40 {
			if sharding.BucketOf(sharding.Hash(fmt.Sprintf("uid-%d", i)), buckets) == 2 {
				want = append(want, fmt.Sprintf("cm-%d", i))
			}
		}
		var got []string
		for _, r := range qc.Keys(2) {
			got = append(got, r.Name)
			if b := sharding.BucketOf(qc.Hash(r), buckets); b != 2 {
				t.Errorf("Hash(%v) is in bucket %d, not 2", r, b)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("Keys(2) = %v; want %v", got, want)
		}
		defer func() {
			if r := recover(); r == nil {
				t.Error("a second sharded informer of one kind did not panic")
			}
		}()
		c.NewInformer(configMaps(0), &corev1.ConfigMap{}, 0, nil)
	})
}
