package shardcache

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"
)

// shard is one bucket's client-go informer, and the keys of the objects deleted from it
// lately (see Informer.Hash).
type shard struct {
	bucket   int
	informer cache.SharedIndexInformer
	cancel   func()
	done     chan struct{} // closed once the informer's Run has returned
	// ready is set once the informer has synced in a preparation that succeeded.
	ready atomic.Bool
	ttl   time.Duration

	mu         sync.Mutex
	tombstones map[string]time.Time // key → when it stops keeping the bucket
	sweepAt    int                  // len(tombstones) at which deleted sweeps the expired
}

// stop stops the informer and waits until it has.
func (sh *shard) stop() {
	sh.cancel()
	<-sh.done
}

// deleted notes that the object of key was deleted from the bucket: key keeps the bucket
// for the shard's TTL, unless a live object takes it.
func (sh *shard) deleted(key string, now time.Time) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(sh.tombstones) >= sh.sweepAt {
		for k, until := range sh.tombstones {
			if !now.Before(until) {
				delete(sh.tombstones, k)
			}
		}
		sh.sweepAt = 2*len(sh.tombstones) + 64
	}
	sh.tombstones[key] = now.Add(sh.ttl)
}

// wasDeleted reports whether the object of key was deleted from the bucket within the TTL
// before now.
func (sh *shard) wasDeleted(key string, now time.Time) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	until, ok := sh.tombstones[key]
	return ok && now.Before(until)
}

// noting is a handler of one bucket's informer that notes each deletion in the shard before
// the handler it wraps sees it, so that the deleted object's key still has the bucket when the
// handler adds it to the queue.
type noting struct {
	cache.ResourceEventHandler
	sh *shard
}

func (n noting) OnDelete(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		n.sh.deleted(key, time.Now())
	}
	n.ResourceEventHandler.OnDelete(obj)
}
