package sharding

import (
	"fmt"
	"hash/fnv"
	"math/bits"
	"strings"

	apisharding "k8s.io/apimachinery/pkg/sharding"
)

// Hash returns the 64-bit FNV-1a hash of value: the hash that Kubernetes' server-side sharded
// list and watch (KEP-5866, alpha in 1.36, feature gate ShardedListAndWatch) computes for
// shardRange() selectors, as k8s.io/apimachinery/pkg/sharding.HashField defines it in v0.37.2.
func Hash(value string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(value)) // a hash.Hash never fails to write
	return h.Sum64()
}

// HashKey is the hash of a whole queue key ("namespace/name" or "name"): [Hash] of the key,
// mixed by splitmix64's finalizer. FNV-1a alone sets the high bits, which choose the bucket,
// poorly for keys that differ only in their last characters: the 100 keys "default/cm-000" to
// "default/cm-099" all fall in one bucket of 12. Mixed, they spread over all 12. It matches no
// server-side selector: a replica using it watches every object. It is the default hash of a
// [Queue] of strings. Every replica of a controller must use the same hash, this one included:
// a replica that hashes a key to another bucket processes it while its holder does.
func HashKey(key string) uint64 { return mix(Hash(key)) }

// mix is splitmix64's finalizer: every bit of its result depends on every bit of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// HashNamespace is the hash of the namespace of a key of the form "namespace/name" (the form of
// client-go's cache.MetaNamespaceKeyFunc); a key without a slash is a cluster-scoped name, whose
// namespace is "". Every key of a namespace lands in the same bucket, the bucket whose range
// [ShardSelector] with field "object.metadata.namespace" selects on the server.
func HashNamespace(key string) uint64 {
	namespace, _, found := strings.Cut(key, "/")
	if !found {
		namespace = ""
	}
	return Hash(namespace)
}

// BucketOf returns the bucket, in [0, buckets), of a key whose hash is h. Bucket b holds the
// hashes of the contiguous range [⌈b·2⁶⁴/buckets⌉, ⌈(b+1)·2⁶⁴/buckets⌉), which is the range
// [ShardSelector] names. It panics if buckets is not positive.
func BucketOf(h uint64, buckets int) int {
	if buckets <= 0 {
		panic(fmt.Sprintf("sharding: BucketOf: buckets is %d, want > 0", buckets))
	}
	hi, _ := bits.Mul64(h, uint64(buckets)) // ⌊h·buckets/2⁶⁴⌋
	return int(hi)
}

// rangeStart returns ⌈b·2⁶⁴/buckets⌉ as the server writes a bound: "0x" and 16 lowercase hex
// digits, or "0x10000000000000000" for 2⁶⁴ (b == buckets). The server compares bounds first by
// length, so every bound below 2⁶⁴ must have all 16 digits.
func rangeStart(b, buckets int) string {
	if b == buckets {
		return "0x10000000000000000"
	}
	quo, rem := bits.Div64(uint64(b), 0, uint64(buckets))
	if rem != 0 {
		quo++
	}
	return fmt.Sprintf("0x%016x", quo)
}

// ShardSelector returns the value of metav1.ListOptions.ShardSelector that selects the objects
// of the given buckets out of buckets: field is "object.metadata.namespace" (for keys hashed by
// HashNamespace) or "object.metadata.uid" (for items hashed by Hash of their UID), the two
// fields the v1.37 API server supports. It is empty, selecting everything, when held is empty.
// The string is built by k8s.io/apimachinery/pkg/sharding, so its format is the server's.
//
// An informer's selector is fixed when it starts: to watch only the buckets a replica holds,
// restart the informer when they change (see [Sharder.Held]). The feature is alpha and off by
// default; a server without it ignores the field and sends every object, which a [Queue]
// filters anyway. It panics if buckets is not positive or a bucket is out of range.
func ShardSelector(field string, buckets int, held ...int) string {
	if buckets <= 0 {
		panic(fmt.Sprintf("sharding: ShardSelector: buckets is %d, want > 0", buckets))
	}
	reqs := make([]apisharding.ShardRangeRequirement, 0, len(held))
	for _, b := range held {
		if b < 0 || b >= buckets {
			panic(fmt.Sprintf("sharding: ShardSelector: bucket %d is out of [0, %d)", b, buckets))
		}
		reqs = append(reqs, apisharding.ShardRangeRequirement{Key: field, Start: rangeStart(b, buckets), End: rangeStart(b+1, buckets)})
	}
	if len(reqs) == 0 {
		return ""
	}
	return apisharding.NewSelector(reqs...).String()
}
