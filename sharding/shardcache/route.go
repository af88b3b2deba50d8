package shardcache

import (
	"math/bits"
	"time"

	"github.com/actorqueue/workqueue/sharding"
)

// QueueConfig returns the configuration of a sharding.Queue of this Informer's keys
// ("namespace/name", or "name" for cluster-scoped objects, as cache.MetaNamespaceKeyFunc
// gives them): its Hash puts each key in the bucket of its object (Hash), and its Keys lists
// an acquired bucket's keys from the bucket's store, synced by then.
func (inf *Informer) QueueConfig() sharding.QueueConfig[string] {
	return sharding.QueueConfig[string]{Hash: inf.Hash, Keys: inf.Keys}
}

// Keys returns the keys of the objects of bucket that the Informer caches: every one, once the
// bucket's preparation has succeeded.
func (inf *Informer) Keys(bucket int) []string {
	inf.mu.Lock()
	sh := inf.shards[bucket]
	inf.mu.Unlock()
	if sh == nil {
		return nil
	}
	return sh.informer.GetStore().ListKeys()
}

// Hash returns a hash in the bucket of key's object, for the queue (QueueConfig.Hash): with
// ByNamespace, sharding.HashNamespace(key); with ByUID, the first hash of the bucket Bucket
// returns, not a hash of the key.
func (inf *Informer) Hash(key string) uint64 {
	if inf.opts.Field == ByNamespace {
		return sharding.HashNamespace(key)
	}
	return bucketStart(inf.Bucket(key), inf.buckets)
}

// Bucket returns the bucket of key's object. With ByNamespace it is the bucket of the key's
// namespace. With ByUID, the key does not carry the UID, so it is, in order:
//
//  1. the bucket whose store has an object of key, among the buckets prepared here (synced);
//  2. the bucket an object of key was deleted from, within Options.TombstoneTTL, among
//     them: the deletion is its holder's to reconcile, even if an object of the same name
//     has been created since in a bucket that another replica holds;
//  3. otherwise the object is in no bucket this replica holds: a bucket not prepared here,
//     so that the queue drops the key (its holder has it, or no object of key exists); but
//     if every bucket is prepared here, the object does not exist (or its creation is on its
//     way here), and the key keeps the bucket of sharding.HashKey(key), to be reconciled
//     here, as an unsharded controller would.
//
// An object's bucket never changes (its UID does not), so events, deletions, the keys listed
// at acquisition and retries all find the bucket that delivered the object. A key handed out
// to a reconcile had a bucket held here: its object is in that bucket's synced store, or was
// deleted from it. A name reused by an object of another bucket is two objects to the
// queue's holders: the old object's holder reconciles its deletion while the new object's
// holder reconciles the new one, and the two may overlap (write by UID, e.g. with
// preconditions, or shard by namespace to keep one key in one bucket).
func (inf *Informer) Bucket(key string) int {
	if inf.opts.Field == ByNamespace {
		return sharding.BucketOf(sharding.HashNamespace(key), inf.buckets)
	}
	inf.mu.Lock()
	ready := make([]*shard, 0, len(inf.shards))
	for _, sh := range inf.shards {
		if sh.ready.Load() {
			ready = append(ready, sh)
		}
	}
	inf.mu.Unlock()
	for _, sh := range ready {
		if _, ok, _ := sh.informer.GetIndexer().GetByKey(key); ok {
			return sh.bucket
		}
	}
	now := time.Now()
	for _, sh := range ready {
		if sh.wasDeleted(key, now) {
			return sh.bucket
		}
	}
	home := sharding.BucketOf(sharding.HashKey(key), inf.buckets)
	if len(ready) == inf.buckets {
		return home
	}
	prepared := make([]bool, inf.buckets)
	for _, sh := range ready {
		prepared[sh.bucket] = true
	}
	for i := range inf.buckets {
		// Not prepared here, nor held (an Informer registered late is still preparing
		// buckets held already).
		if b := (home + i) % inf.buckets; !prepared[b] && !inf.sharder.Holds(b) {
			return b
		}
	}
	return home
}

// bucketStart returns the first hash of bucket b of buckets, ⌈b·2⁶⁴/buckets⌉, which
// sharding.BucketOf puts in b.
func bucketStart(b, buckets int) uint64 {
	quo, rem := bits.Div64(uint64(b), 0, uint64(buckets))
	if rem != 0 {
		quo++
	}
	return quo
}
