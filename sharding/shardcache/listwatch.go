package shardcache

import (
	"context"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// bucketLW lists and watches one bucket's objects through the Informer's ListerWatcher: it
// asks the API server for them alone with the bucket's shard selector and, whether the server
// applied it or not, passes on only them. A list without ListMeta.ShardInfo, or an object
// outside the bucket, tells the Informer that the server ignores the selector.
//
// It declines client-go's streaming lists (WatchListClient), whose stream carries no
// ListMeta: a list and then a watch, as before that feature, so that every list shows whether
// the selector was applied.
type bucketLW struct {
	inf      *Informer
	bucket   int
	selector string
}

var (
	_ cache.ListerWatcher            = (*bucketLW)(nil)
	_ cache.ListerWatcherWithContext = (*bucketLW)(nil)
)

// List is ListWithContext without a context; client-go's reflector calls ListWithContext.
func (lw *bucketLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

// Watch is WatchWithContext without a context; client-go's reflector calls WatchWithContext.
func (lw *bucketLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

// IsWatchListSemanticsUnSupported reports true: see bucketLW.
func (*bucketLW) IsWatchListSemanticsUnSupported() bool { return true }

// ListWithContext lists the bucket's objects.
func (lw *bucketLW) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if lw.inf.ignoring.Load() { // the server sends everything: share the list with other buckets
		shared, err := lw.inf.up.list(ctx, opts)
		if err != nil {
			return nil, err
		}
		return lw.filter(shared, shallowCopy(shared))
	}
	opts.ShardSelector = lw.selector
	list, err := lw.inf.lw.ListWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	if !shardInfoPresent(list) {
		lw.inf.ignored()
	}
	return lw.filter(list, list)
}

// filter sets the items of out, a list of the type of in, to those of in that belong to the
// bucket, and returns it. in is only read (unless it is out).
func (lw *bucketLW) filter(in, out runtime.Object) (runtime.Object, error) {
	items, err := meta.ExtractList(in)
	if err != nil {
		return nil, err
	}
	kept := items[:0]
	for _, item := range items {
		if lw.keep(item) {
			kept = append(kept, item)
		}
	}
	if dropped := len(items) - len(kept); dropped > 0 || in != out {
		lw.inf.filtered(dropped)
		clear(items[len(kept):]) // let the dropped objects go
		if err := meta.SetList(out, kept); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shallowCopy returns a new list of list's type with its fields (its items are replaced by
// filter, which copies them).
func shallowCopy(list runtime.Object) runtime.Object {
	v := reflect.ValueOf(list).Elem()
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	return c.Interface().(runtime.Object)
}

// WatchWithContext watches the bucket's objects.
func (lw *bucketLW) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if lw.inf.ignoring.Load() { // the server sends everything: share one watch of it
		if w, ok, err := lw.inf.up.subscribe(lw.bucket, opts.ResourceVersion); ok {
			return w, err
		}
	}
	opts.ShardSelector = lw.selector
	w, err := lw.inf.lw.WatchWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	f := &filtered{incoming: w, keep: lw.keep, inf: lw.inf, result: make(chan watch.Event), stop: make(chan struct{})}
	go f.loop()
	return f, nil
}

// filtered is a watch that passes on the events of one bucket's objects (and the others:
// bookmarks, errors). Unlike apimachinery's watch.Filter, Stop ends its goroutine even while
// an event waits for a reader that has gone.
type filtered struct {
	incoming watch.Interface
	keep     func(runtime.Object) bool
	inf      *Informer
	result   chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (f *filtered) ResultChan() <-chan watch.Event { return f.result }

// Stop stops the watch and its goroutine; it may be called more than once.
func (f *filtered) Stop() {
	f.stopOnce.Do(func() {
		close(f.stop)
		f.incoming.Stop()
	})
}

func (f *filtered) loop() {
	defer close(f.result)
	for {
		var e watch.Event
		var ok bool
		select {
		case e, ok = <-f.incoming.ResultChan():
			if !ok {
				return
			}
		case <-f.stop:
			return
		}
		switch e.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			if !f.keep(e.Object) {
				f.inf.filtered(1)
				continue
			}
		}
		select {
		case f.result <- e:
		case <-f.stop:
			return
		}
	}
}

// keep reports whether obj belongs to the bucket; it tells the Informer if not, as the server
// should not have sent it. An object whose field cannot be read is kept.
func (lw *bucketLW) keep(obj runtime.Object) bool {
	b, err := lw.inf.opts.Field.bucketOf(obj, lw.inf.buckets)
	if err != nil || b == lw.bucket {
		return true
	}
	lw.inf.ignored()
	return false
}

// shardInfoPresent reports whether list, a list response, carries ListMeta.ShardInfo: the
// server applied the shard selector.
func shardInfoPresent(list runtime.Object) bool {
	switch l := list.(type) {
	case interface{ GetShardInfo() *metav1.ShardInfo }:
		return l.GetShardInfo() != nil
	case *unstructured.UnstructuredList:
		_, found, _ := unstructured.NestedFieldNoCopy(l.Object, "metadata", "shardInfo")
		return found
	}
	return false
}
