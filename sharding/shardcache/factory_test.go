package shardcache

import (
	"context"
	"maps"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// TestInformerFactory checks the way into a client-go informer factory: InformerFor makes the
// Informer the factory's informer of its kind, which the factory starts, and whose lister
// reads the held buckets' objects.
func TestInformerFactory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, true)
		srv.populate(50)
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
		factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
		factory.InformerFor(&corev1.ConfigMap{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer { return inf })
		configMaps := factory.Core().V1().ConfigMaps() // client-go wraps inf in a typed informer
		ctx, cancel := context.WithCancel(context.Background())
		factory.Start(ctx.Done())
		defer func() {
			cancel()
			factory.Shutdown()
		}()
		bucket := srv.bucketOf(srv.objects["ns-0/cm-0"])
		if err := inf.Prepare(ctx, bucket); err != nil {
			t.Fatal(err)
		}
		listed, err := configMaps.Lister().List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		got := make(map[string]bool)
		for _, cm := range listed {
			got[cm.Namespace+"/"+cm.Name] = true
		}
		if want := srv.keysIn(bucket); !maps.Equal(got, want) || len(want) == 0 {
			t.Errorf("the lister lists %d ConfigMaps; want the %d of bucket %d", len(got), len(want), bucket)
		}
		inNamespace, err := configMaps.Lister().ConfigMaps("ns-0").List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		if len(inNamespace) == 0 {
			t.Error("the namespace index gave nothing of ns-0")
		}
		for _, cm := range inNamespace {
			if cm.Namespace != "ns-0" || !got["ns-0/"+cm.Name] {
				t.Errorf("the namespace index gave %s/%s", cm.Namespace, cm.Name)
			}
		}
	})
}
