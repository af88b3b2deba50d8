package shardcache

import "time"

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
