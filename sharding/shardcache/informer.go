package shardcache

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/actorqueue/workqueue/sharding"
)

// Informer is a cache.SharedIndexInformer of the objects of the buckets a sharding.Sharder
// holds, and only theirs: it runs one client-go informer per held bucket, each listing and
// watching the bucket's hash range with a server-side shard selector, and shows them as one
// informer. It is the Sharder's BucketWatcher (New registers it): a bucket acquired is
// listed and its watch synced before its keys are handed out; a bucket given up is no longer
// watched, and its objects are dropped, once its reconciles are done.
//
// Event handlers receive the events of every held bucket's objects; a bucket's objects
// arrive as Add events when it is acquired and leave without Delete events when it is given
// up (they were not deleted). GetIndexer and GetStore return a read-only view over every
// bucket's store. HasSynced reports true once Run has been called and the buckets held then
// have synced, and stays true: a bucket acquired later is synced before its keys are handed
// out. LastSyncResourceVersion returns "": each bucket's watch has its own. Its methods are
// safe for simultaneous use by multiple goroutines.
type Informer struct {
	sharder *sharding.Sharder
	lw      cache.ListerWatcherWithContext
	example runtime.Object
	opts    Options
	buckets int
	logger  klog.Logger
	ignore  sync.Once
	// ignoring is set once the server is seen to ignore shard selectors: the buckets' watches
	// then share up.
	ignoring  atomic.Bool
	up        upstream
	reporting sync.Mutex // orders the calls of Metrics.Cached

	running chan struct{} // closed by Run, once runCtx is set
	synced  chan struct{} // closed once running and the buckets of initial have synced
	ended   chan struct{} // closed once Run has stopped every bucket's informer

	mu         sync.Mutex
	runCtx     context.Context
	stopped    bool
	initial    []int          // buckets held when New registered the Informer
	shards     map[int]*shard // by bucket: the buckets being prepared or held
	handlers   []*registration
	indexers   cache.Indexers
	transform  cache.TransformFunc
	onWatchErr cache.WatchErrorHandlerWithContext
}

var (
	_ cache.SharedIndexInformer = (*Informer)(nil)
	_ sharding.BucketWatcher    = (*Informer)(nil)
)

// New returns an Informer of the objects like example (a pointer to a typed object, or an
// Unstructured with its kind) that lw lists and watches, for the buckets s holds, and
// registers it with s (Sharder.Watch). lw lists and watches the whole collection, as it
// would for client-go's NewSharedIndexInformer; the Informer adds each bucket's shard
// selector. Run it as a client-go informer, before or after s's Run. It panics with a
// "sharding:" message if s, lw or example is nil or opts.Field is not a Field.
func New(s *sharding.Sharder, lw cache.ListerWatcher, example runtime.Object, opts Options) *Informer {
	switch {
	case s == nil:
		panic("sharding: shardcache.New: nil Sharder")
	case lw == nil:
		panic("sharding: shardcache.New: nil ListerWatcher")
	case example == nil:
		panic("sharding: shardcache.New: nil example object")
	}
	opts = opts.withDefaults(example)
	logger := klog.Background()
	if opts.Logger != nil {
		logger = *opts.Logger
	}
	inf := &Informer{
		sharder: s, lw: cache.ToListerWatcherWithContext(lw), example: example, opts: opts, buckets: s.Buckets(),
		logger: logger, running: make(chan struct{}), synced: make(chan struct{}), ended: make(chan struct{}),
		shards: make(map[int]*shard), indexers: maps.Clone(opts.Indexers),
	}
	if inf.indexers == nil {
		inf.indexers = cache.Indexers{}
	}
	inf.up = upstream{inf: inf, subs: make(map[*subscription]struct{})}
	inf.initial = s.Watch(inf)
	return inf
}

// Field returns the field whose hash puts an object in a bucket, Options.Field.
func (inf *Informer) Field() Field { return inf.opts.Field }

// Prepare starts watching bucket's objects and returns once the watch has synced, or with an
// error once ctx ends, Options.SyncTimeout passes or the Informer stops. The Sharder calls
// it (see sharding.BucketWatcher); it waits for Run.
func (inf *Informer) Prepare(ctx context.Context, bucket int) error {
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, inf.opts.SyncTimeout,
		fmt.Errorf("sharding: shardcache: %s of bucket %d not synced within %v", inf.opts.Resource, bucket, inf.opts.SyncTimeout))
	defer cancel()
	select {
	case <-inf.running:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	sh, err := inf.start(bucket)
	if err != nil {
		return err
	}
	select {
	case <-sh.informer.HasSyncedChecker().Done():
	case <-sh.done:
		return fmt.Errorf("sharding: shardcache: %s of bucket %d: the informer stopped", inf.opts.Resource, bucket)
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	sh.ready.Store(true)
	inf.opts.Metrics.Synced(inf.opts.Resource, bucket, time.Since(start))
	inf.reportCached()
	return nil
}

// Release stops watching bucket and drops its objects, without events. The Sharder calls it
// (see sharding.BucketWatcher). It returns once the bucket's informer has stopped.
func (inf *Informer) Release(bucket int) {
	inf.mu.Lock()
	sh := inf.shards[bucket]
	delete(inf.shards, bucket)
	for _, r := range inf.handlers {
		delete(r.shards, sh) // the informer goes, and its handlers with it
	}
	inf.mu.Unlock()
	if sh != nil {
		sh.stop()
		inf.reportCached()
	}
}

// start returns bucket's shard, starting it if it is not running.
func (inf *Informer) start(bucket int) (*shard, error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.stopped {
		return nil, errors.New("sharding: shardcache: the Informer has stopped")
	}
	if sh := inf.shards[bucket]; sh != nil {
		return sh, nil
	}
	lw := &bucketLW{inf: inf, bucket: bucket, selector: sharding.ShardSelector(string(inf.opts.Field), inf.buckets, bucket)}
	informer := cache.NewSharedIndexInformerWithOptions(lw, inf.example, cache.SharedIndexInformerOptions{
		ResyncPeriod:      inf.opts.ResyncPeriod,
		Indexers:          maps.Clone(inf.indexers),
		ObjectDescription: fmt.Sprintf("%s of bucket %d", inf.opts.Resource, bucket),
	})
	if inf.transform != nil {
		if err := informer.SetTransform(inf.transform); err != nil {
			return nil, err
		}
	}
	if inf.onWatchErr != nil {
		if err := informer.SetWatchErrorHandlerWithContext(inf.onWatchErr); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(inf.runCtx)
	sh := &shard{bucket: bucket, informer: informer, cancel: cancel, done: make(chan struct{}), ttl: inf.opts.TombstoneTTL,
		tombstones: make(map[string]time.Time)}
	for _, r := range inf.handlers {
		if err := r.attach(sh); err != nil {
			cancel()
			return nil, err
		}
	}
	inf.shards[bucket] = sh
	go func() {
		defer close(sh.done)
		informer.RunWithContext(ctx)
	}()
	return sh, nil
}

// RunWithContext runs the Informer until ctx is done: it starts watching the buckets held
// when New registered it, and those the Sharder prepares from then on. When ctx is done, it
// stops every bucket's informer and returns once they have stopped. A second call returns at
// once.
func (inf *Informer) RunWithContext(ctx context.Context) {
	inf.mu.Lock()
	if inf.runCtx != nil {
		inf.mu.Unlock()
		inf.logger.Info("sharding: shardcache: the Informer is already running", "resource", inf.opts.Resource)
		return
	}
	inf.runCtx = ctx
	initial := inf.initial
	inf.mu.Unlock()
	inf.probe(ctx)
	close(inf.running)

	var waits []<-chan struct{}
	for _, b := range initial {
		sh, err := inf.start(b)
		if err != nil {
			inf.logger.Error(err, "sharding: shardcache: starting the watch of a held bucket", "resource", inf.opts.Resource, "bucket", b)
			continue
		}
		waits = append(waits, sh.informer.HasSyncedChecker().Done())
		go func() {
			select {
			case <-sh.informer.HasSyncedChecker().Done():
				sh.ready.Store(true)
			case <-ctx.Done():
			}
		}()
	}
	go func() {
		for _, w := range waits {
			select {
			case <-w:
			case <-ctx.Done():
				return
			}
		}
		close(inf.synced)
	}()

	<-ctx.Done()
	inf.mu.Lock()
	inf.stopped = true
	shards := inf.shards
	inf.shards = make(map[int]*shard)
	inf.mu.Unlock()
	for _, sh := range shards {
		sh.stop()
	}
	close(inf.ended)
}

// probe asks the server for one object with a shard selector, so that a server that ignores
// selectors is known before the buckets list: they would otherwise each list the whole
// collection at once. A probe that fails tells nothing; the buckets' lists will.
func (inf *Informer) probe(ctx context.Context) {
	list, err := inf.lw.ListWithContext(ctx, metav1.ListOptions{Limit: 1,
		ShardSelector: sharding.ShardSelector(string(inf.opts.Field), inf.buckets, 0)})
	if err == nil && !shardInfoPresent(list) {
		inf.ignored()
	}
}

// Run is RunWithContext with a channel.
func (inf *Informer) Run(stopCh <-chan struct{}) { inf.RunWithContext(wait.ContextForChannel(stopCh)) }

// HasSynced reports whether Run has been called and the buckets held then have synced.
func (inf *Informer) HasSynced() bool {
	select {
	case <-inf.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker returns a DoneChecker whose channel is closed once HasSynced is true.
func (inf *Informer) HasSyncedChecker() cache.DoneChecker {
	return checker{inf.opts.Resource, inf.synced}
}

// IsStopped reports whether Run has returned or is returning.
func (inf *Informer) IsStopped() bool {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.stopped
}

// LastSyncResourceVersion returns "": each bucket's watch has its own resourceVersion.
func (inf *Informer) LastSyncResourceVersion() string { return "" }

// GetController returns a Controller whose Run does nothing, as client-go's informers do;
// its HasSynced is the Informer's.
func (inf *Informer) GetController() cache.Controller { return controller{inf} }

// GetStore returns the read-only view over every bucket's store (see GetIndexer).
func (inf *Informer) GetStore() cache.Store { return view{inf} }

// GetIndexer returns a read-only view over every bucket's store: reads return the objects
// of every bucket being watched; writes fail.
func (inf *Informer) GetIndexer() cache.Indexer { return view{inf} }

// AddIndexers adds indexers to every bucket's store, now and to come.
func (inf *Informer) AddIndexers(indexers cache.Indexers) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for name := range indexers {
		if _, ok := inf.indexers[name]; ok {
			return fmt.Errorf("sharding: shardcache: indexer %q already exists", name)
		}
	}
	for _, sh := range inf.shards {
		if err := sh.informer.AddIndexers(indexers); err != nil {
			return err
		}
	}
	maps.Copy(inf.indexers, indexers)
	return nil
}

// SetTransform sets the transform of every bucket's informer. It fails once the Informer
// watches a bucket, as client-go's fails once its informer has started.
func (inf *Informer) SetTransform(transform cache.TransformFunc) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if len(inf.shards) > 0 || inf.stopped {
		return errors.New("sharding: shardcache: SetTransform once buckets are watched")
	}
	inf.transform = transform
	return nil
}

// SetWatchErrorHandler sets the watch error handler of the buckets' informers to come.
func (inf *Informer) SetWatchErrorHandler(handler cache.WatchErrorHandler) error {
	return inf.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) { handler(r, err) })
}

// SetWatchErrorHandlerWithContext sets the watch error handler of the buckets' informers to
// come. It fails once the Informer watches a bucket, as client-go's fails once started.
func (inf *Informer) SetWatchErrorHandlerWithContext(handler cache.WatchErrorHandlerWithContext) error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if len(inf.shards) > 0 || inf.stopped {
		return errors.New("sharding: shardcache: SetWatchErrorHandler once buckets are watched")
	}
	inf.onWatchErr = handler
	return nil
}

// shardList returns the shards, ready or being prepared.
func (inf *Informer) shardList() []*shard {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	shards := make([]*shard, 0, len(inf.shards))
	for _, sh := range inf.shards {
		shards = append(shards, sh)
	}
	return shards
}

// checker is a cache.DoneChecker of a channel.
type checker struct {
	name string
	done <-chan struct{}
}

func (c checker) Name() string          { return c.name }
func (c checker) Done() <-chan struct{} { return c.done }

// controller is what GetController returns.
type controller struct{ inf *Informer }

func (controller) Run(<-chan struct{})                   {}
func (controller) RunWithContext(context.Context)        {}
func (c controller) HasSynced() bool                     { return c.inf.HasSynced() }
func (c controller) HasSyncedChecker() cache.DoneChecker { return c.inf.HasSyncedChecker() }
func (c controller) LastSyncResourceVersion() string     { return "" }
