package shardcache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue/sharding"
)

// Field is the field of an object whose hash puts it in a bucket: one of the two that the API
// server's shard selector supports.
type Field string

const (
	// ByUID puts each object in the bucket of its UID (object.metadata.uid): the objects
	// spread evenly over the buckets, whatever their names and namespaces. A queue key
	// ("namespace/name") does not carry the UID, so the key's bucket is that of the object
	// this replica caches under the key (see [Informer.Hash]). It is the default.
	ByUID Field = "object.metadata.uid"
	// ByNamespace puts each object in the bucket of its namespace (object.metadata.namespace):
	// every object of a namespace, of every kind, in one bucket, so that a reconcile reads
	// complete namespaces and an owner's children share its bucket; the key gives the bucket
	// ([sharding.HashNamespace]). The spread follows the namespaces: one big namespace is one
	// big bucket, and namespaces whose names differ only at their end (ns-1, ns-2, …) fall
	// in few buckets, as FNV-1a's high bits barely move there.
	ByNamespace Field = "object.metadata.namespace"
)

// bucketOf returns the bucket of obj, a Kubernetes object, a cache.DeletedFinalStateUnknown
// of one, or a metadata-only object, out of buckets.
func (f Field) bucketOf(obj any, buckets int) (int, error) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0, err
	}
	value := string(m.GetUID())
	if f == ByNamespace {
		value = m.GetNamespace()
	}
	return sharding.BucketOf(sharding.Hash(value), buckets), nil
}

// validate panics unless f is ByUID or ByNamespace.
func (f Field) validate() {
	if f != ByUID && f != ByNamespace {
		panic(fmt.Sprintf("sharding: shardcache: Field %q, want %q or %q", string(f), ByUID, ByNamespace))
	}
}
