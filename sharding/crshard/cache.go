package crshard

import (
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/shardcache"
)

// Cache shards the informers of a controller-runtime cache: give its NewInformer to the
// manager's cache.Options, and the informers of the kinds it shards cache only the objects of
// the buckets the Sharder holds (see package shardcache); the others stay whole. It is safe
// for simultaneous use by multiple goroutines.
//
//	sc := crshard.NewCache(s, crshard.CacheOptions{Objects: []client.Object{&corev1.ConfigMap{}}})
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Cache: cache.Options{NewInformer: sc.NewInformer}})
//	shard := crshard.New(s, sc.QueueConfig(&corev1.ConfigMap{}))
//
// The controller's reads through the manager's client see the held buckets' objects of the
// sharded kinds: with shardcache.ByUID (the default) shard the controller's own kind (For)
// and leave the kinds it Owns whole, as the children's UIDs are not their owner's (their
// events still reach the owner's holder, and only it); with ByNamespace, shard every
// namespaced kind the reconciles read, as they share their namespace's bucket.
type Cache struct {
	sharder *sharding.Sharder
	opts    shardcache.Options
	sharded map[reflect.Type]bool

	mu        sync.Mutex
	informers map[reflect.Type]*shardcache.Informer
}

// CacheOptions configures a [Cache].
type CacheOptions struct {
	// Objects are the kinds to shard, as typed objects (e.g. &corev1.ConfigMap{}). Others
	// get client-go's plain informer.
	Objects []client.Object
	// Options are the sharded informers' options; the cache's resync period and indexers
	// are added to them, and Resource defaults to the kind's Go type.
	Options shardcache.Options
}

// NewCache returns a Cache of the kinds in opts.Objects, for the buckets s holds. It panics
// with a "sharding:" message if s is nil or opts.Objects is empty.
func NewCache(s *sharding.Sharder, opts CacheOptions) *Cache {
	if s == nil {
		panic("sharding: crshard.NewCache: nil Sharder")
	}
	if len(opts.Objects) == 0 {
		panic("sharding: crshard.NewCache: no Objects to shard")
	}
	c := &Cache{sharder: s, opts: opts.Options, sharded: make(map[reflect.Type]bool),
		informers: make(map[reflect.Type]*shardcache.Informer)}
	for _, obj := range opts.Objects {
		c.sharded[reflect.TypeOf(obj)] = true
	}
	return c
}

// NewInformer is for controller-runtime's cache.Options.NewInformer: for a sharded kind it
// returns a shardcache.Informer (registered with the Sharder), and client-go's
// NewSharedIndexInformer otherwise. A cache of one namespace, or of all, makes one informer
// per kind. A sharded kind's second informer, from a cache of several namespaces (one
// informer per namespace) or a second cache on this Cache, is refused with a panic: the
// queue's keys would have no single informer to find their bucket in. Cache the whole
// cluster instead (and, with ByNamespace, every namespace is sharded anyway).
func (c *Cache) NewInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	t := reflect.TypeOf(obj)
	if !c.sharded[t] {
		return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
	}
	opts := c.opts
	opts.ResyncPeriod = resync
	opts.Indexers = toolscache.Indexers{}
	for name, f := range c.opts.Indexers {
		opts.Indexers[name] = f
	}
	for name, f := range indexers {
		opts.Indexers[name] = f
	}
	if opts.Resource == "" {
		opts.Resource = fmt.Sprintf("%T", obj)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.informers[t] != nil {
		panic(fmt.Sprintf("sharding: crshard: a second informer of %T on one Cache (a cache of several namespaces?): see Cache.NewInformer", obj))
	}
	inf := shardcache.New(c.sharder, lw, obj, opts)
	c.informers[t] = inf
	return inf
}

// Informer returns the sharded informer of obj's kind, or nil before the cache has made it.
func (c *Cache) Informer(obj client.Object) *shardcache.Informer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.informers[reflect.TypeOf(obj)]
}

// QueueConfig returns the configuration of the queue of a controller of obj's kind, a kind
// the Cache shards (for crshard.New): Hash puts each request in its object's bucket
// (shardcache.Informer.Hash), and Keys lists an acquired bucket's objects from the bucket's
// synced store. Ask the manager's cache for obj's informer before the manager starts
// (mgr.GetCache().GetInformer), so that it exists before the Sharder acquires a bucket; until
// it exists, Hash is sharding.HashKey's and Keys lists nothing. It panics if the Cache does
// not shard obj's kind.
func (c *Cache) QueueConfig(obj client.Object) sharding.QueueConfig[reconcile.Request] {
	if !c.sharded[reflect.TypeOf(obj)] {
		panic(fmt.Sprintf("sharding: crshard: Cache.QueueConfig of %T, a kind it does not shard", obj))
	}
	return sharding.QueueConfig[reconcile.Request]{
		Hash: func(r reconcile.Request) uint64 {
			if inf := c.Informer(obj); inf != nil {
				return inf.Hash(requestKey(r))
			}
			return sharding.HashKey(requestKey(r))
		},
		Keys: func(bucket int) []reconcile.Request {
			inf := c.Informer(obj)
			if inf == nil {
				return nil
			}
			keys := inf.Keys(bucket)
			requests := make([]reconcile.Request, 0, len(keys))
			for _, key := range keys {
				namespace, name, err := toolscache.SplitMetaNamespaceKey(key)
				if err != nil {
					continue // a cache.MetaNamespaceKeyFunc key always splits
				}
				requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: namespace, Name: name}})
			}
			return requests
		},
	}
}

// requestKey returns the key of r's object in a client-go store: "namespace/name", or "name"
// for a cluster-scoped object.
func requestKey(r reconcile.Request) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}
