package shardcache

import (
	"errors"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// view is the read-only cache.Indexer over every bucket's store that GetIndexer returns. An
// object is in one bucket's store only, so its reads concatenate theirs.
type view struct{ inf *Informer }

var _ cache.Indexer = view{}

// errReadOnly is what view's writes return: the buckets' informers own their stores.
var errReadOnly = errors.New("sharding: shardcache: the Informer's store is read-only")

func (view) Add(any) error                        { return errReadOnly }
func (view) Update(any) error                     { return errReadOnly }
func (view) Delete(any) error                     { return errReadOnly }
func (view) Replace([]any, string) error          { return errReadOnly }
func (view) Resync() error                        { return errReadOnly }
func (view) Bookmark(string)                      {}
func (view) LastStoreSyncResourceVersion() string { return "" }

// List returns every object of every bucket watched.
func (v view) List() []any {
	var all []any
	for _, sh := range v.inf.shardList() {
		all = append(all, sh.informer.GetIndexer().List()...)
	}
	return all
}

// ListKeys returns the key of every object of every bucket watched.
func (v view) ListKeys() []string {
	var all []string
	for _, sh := range v.inf.shardList() {
		all = append(all, sh.informer.GetIndexer().ListKeys()...)
	}
	return all
}

// Get returns the object with obj's key.
func (v view) Get(obj any) (any, bool, error) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, cache.KeyError{Obj: obj, Err: err}
	}
	return v.GetByKey(key)
}

// GetByKey returns the object of key, from whichever bucket has it.
func (v view) GetByKey(key string) (any, bool, error) {
	for _, sh := range v.inf.shardList() {
		if obj, ok, err := sh.informer.GetIndexer().GetByKey(key); ok || err != nil {
			return obj, ok, err
		}
	}
	return nil, false, nil
}

// Index returns the objects that share an indexed value with obj, over every bucket.
func (v view) Index(indexName string, obj any) ([]any, error) {
	return v.each(func(i cache.Indexer) ([]any, error) { return i.Index(indexName, obj) })
}

// ByIndex returns the objects whose index indexName has indexedValue, over every bucket.
func (v view) ByIndex(indexName, indexedValue string) ([]any, error) {
	return v.each(func(i cache.Indexer) ([]any, error) { return i.ByIndex(indexName, indexedValue) })
}

// IndexKeys returns the keys of the objects whose index indexName has indexedValue.
func (v view) IndexKeys(indexName, indexedValue string) ([]string, error) {
	var all []string
	for _, sh := range v.inf.shardList() {
		keys, err := sh.informer.GetIndexer().IndexKeys(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		all = append(all, keys...)
	}
	return all, nil
}

// ListIndexFuncValues returns the values of index indexName, over every bucket, each once.
func (v view) ListIndexFuncValues(indexName string) []string {
	var all []string
	for _, sh := range v.inf.shardList() {
		all = append(all, sh.informer.GetIndexer().ListIndexFuncValues(indexName)...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// GetIndexers returns the indexers of every bucket's store.
func (v view) GetIndexers() cache.Indexers {
	v.inf.mu.Lock()
	defer v.inf.mu.Unlock()
	indexers := make(cache.Indexers, len(v.inf.indexers))
	for name, f := range v.inf.indexers {
		indexers[name] = f
	}
	return indexers
}

// AddIndexers is the Informer's AddIndexers.
func (v view) AddIndexers(indexers cache.Indexers) error { return v.inf.AddIndexers(indexers) }

// each concatenates what read returns of every bucket's store.
func (v view) each(read func(cache.Indexer) ([]any, error)) ([]any, error) {
	var all []any
	for _, sh := range v.inf.shardList() {
		objs, err := read(sh.informer.GetIndexer())
		if err != nil {
			return nil, err
		}
		all = append(all, objs...)
	}
	return all, nil
}
