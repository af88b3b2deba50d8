package shardcache

import (
	"slices"
	"time"
)

// Metrics receives an [Informer]'s measurements. Its methods are called from many goroutines
// at once and must not block. Resource is Options.Resource.
type Metrics interface {
	// SelectorIgnored is called once, the first time the API server answers a list without
	// ListMeta.ShardInfo or sends an object outside the selected buckets: it does not apply
	// shard selectors (feature gate ShardedListAndWatch off, or older than v1.36). The
	// Informer keeps only the held buckets' objects all the same.
	SelectorIgnored(resource string)
	// Filtered counts objects the API server sent, in lists and watch events, that belong
	// to no bucket the list or watch selected: dropped before the cache.
	Filtered(resource string, n int)
	// Synced reports how long a bucket's preparation took, from Prepare to its watch synced.
	Synced(resource string, bucket int, d time.Duration)
	// Cached reports, after each bucket's preparation and release, the buckets whose watch
	// has synced, in increasing order, and how many objects the Informer caches of them.
	Cached(resource string, buckets []int, objects int)
}

// noMetrics is the Metrics of Options without one.
type noMetrics struct{}

func (noMetrics) SelectorIgnored(string)            {}
func (noMetrics) Filtered(string, int)              {}
func (noMetrics) Synced(string, int, time.Duration) {}
func (noMetrics) Cached(string, []int, int)         {}

// ignored logs, and reports to Metrics, once, that the API server ignores shard selectors.
func (inf *Informer) ignored() {
	inf.ignore.Do(func() {
		inf.ignoring.Store(true)
		inf.logger.Info("sharding: shardcache: the API server ignores shard selectors (feature gate ShardedListAndWatch off, or a server older than v1.36): the buckets' informers list every object, keep only their bucket's, and share one watch",
			"resource", inf.opts.Resource, "field", inf.opts.Field)
		inf.opts.Metrics.SelectorIgnored(inf.opts.Resource)
	})
}

// filtered counts n objects the server sent outside the selected bucket.
func (inf *Informer) filtered(n int) { inf.opts.Metrics.Filtered(inf.opts.Resource, n) }

// reportCached tells Metrics which buckets have synced and how many objects they hold. The
// reports of concurrent preparations and releases reach Metrics in the order they were
// taken, so that the last one is the current state.
func (inf *Informer) reportCached() {
	inf.reporting.Lock()
	defer inf.reporting.Unlock()
	var buckets []int
	n := 0
	for _, sh := range inf.shardList() {
		if sh.ready.Load() {
			buckets = append(buckets, sh.bucket)
			n += len(sh.informer.GetStore().ListKeys())
		}
	}
	slices.Sort(buckets)
	inf.opts.Metrics.Cached(inf.opts.Resource, buckets, n)
}
