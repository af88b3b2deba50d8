// Package shardcache shards the watch of a controller whose keys package sharding spreads
// over replicas: each replica lists, watches and caches only the objects of the buckets it
// holds, through the API server's sharded list and watch (KEP-5866: the shardSelector of
// list and watch requests, feature gate ShardedListAndWatch, alpha in Kubernetes 1.36).
//
// An [Informer] is a client-go cache.SharedIndexInformer over one informer per held bucket,
// each selecting the bucket's hash range on the server. It is the Sharder's
// sharding.BucketWatcher: when the replica wins a bucket, the bucket's watch is listed and
// synced before the queue accepts or lists the bucket's keys, so that no reconcile reads a
// cache that lacks its object; when it gives a bucket up, the watch stops and the objects are
// freed once the bucket's reconciles are done.
//
// # Use
//
// With client-go:
//
//	s := sharding.New(cfg)
//	informer := shardcache.New(s, cache.NewListWatchFromClient(client.CoreV1().RESTClient(),
//		"configmaps", metav1.NamespaceAll, fields.Everything()), &corev1.ConfigMap{},
//		shardcache.Options{Resource: "configmaps"})
//	queue := sharding.Wrap(s, workqueue.NewTypedRateLimitingQueue(limiter), informer.QueueConfig())
//	informer.AddEventHandler(handlers) // queue.Add(key) on each event, as usual
//	go informer.RunWithContext(ctx)
//	go s.Run(ctx)
//
// or, with an informer factory, factory.InformerFor(&corev1.ConfigMap{}, newInformer) with a
// function that returns shardcache.New's Informer. Package crshard gives controller-runtime's
// cache the same informers (cache.Options.NewInformer).
//
// # Buckets the server can select
//
// An object's bucket is the hash of one of its fields, one of the two the server supports
// ([Field]): its UID ([ByUID], the default: an even spread) or its namespace ([ByNamespace]:
// whole namespaces, so an owner and its children, together; as skewed as the namespaces).
// Neither field changes in an object's life, so an object stays in its bucket, and its
// deletion arrives on the watch that delivered it. A key ("namespace/name") does not carry
// the UID: [Informer.Hash] gives the queue a key's bucket from what the replica caches (see
// [Informer.Bucket] for the rule, deletions and names reused included).
//
// # What a bucket change costs
//
// One watch per held bucket and kind: Buckets watches per kind over all replicas, whatever
// their number, each object on exactly one of them. Acquiring a bucket lists that bucket's
// objects (1/Buckets of the collection) and opens its watch; giving it up closes its watch
// and drops its objects; no other bucket's watch restarts. (Merging adjacent buckets into one
// selector would take fewer watches, but each change would relist the merged neighbours.)
//
// # A server without the feature
//
// A server with the gate off, or older than 1.36, ignores the selector and sends every
// object. A list response without ListMeta.ShardInfo (the Informer asks for one object with
// a selector when it starts, before any bucket lists), or an object outside the bucket, shows
// it: the Informer logs it once, reports it once ([Metrics].SelectorIgnored),
// and filters on its own, so that the cache holds the held buckets' objects only and loses
// none (Metrics.Filtered counts what it drops). From then on (until the replica restarts) the
// buckets' informers share one watch of the whole collection (upstream.go), so that each
// change reaches the replica once, not once per held bucket, and buckets acquired together
// share one list of it; a bucket acquired alone still lists the whole collection to keep its
// part. Streaming lists (client-go's WatchListClient) carry no ListMeta, so the buckets'
// informers list and then watch.
package shardcache
