package shardcache

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Options configures an [Informer]. The zero value is ready to use.
type Options struct {
	// Field is the field whose hash puts an object in a bucket. Zero means ByUID.
	Field Field
	// Resource names the objects in the log and in Metrics, e.g. "configmaps". Zero means
	// the example object's Go type.
	Resource string
	// ResyncPeriod is the handlers' default resync period, as client-go's informers take
	// it; zero, none.
	ResyncPeriod time.Duration
	// Indexers are added to every bucket's store, as to a client-go informer's.
	Indexers cache.Indexers
	// SyncTimeout bounds a bucket's preparation: if its watch has not synced by then, the
	// replica gives the bucket back (see sharding.BucketWatcher). Zero means a minute.
	SyncTimeout time.Duration
	// TombstoneTTL is how long, with ByUID, the key of an object deleted from a held bucket
	// keeps that bucket while no object of that key is cached (see [Informer.Hash]): longer
	// than the longest backoff of the controller's retries. Zero means 30 minutes, above
	// the 1000 s of client-go's and controller-runtime's default rate limiters.
	TombstoneTTL time.Duration
	// Metrics receives the Informer's measurements; nil records none.
	Metrics Metrics
	// Logger logs, once, that the API server ignores shard selectors. Nil means
	// klog.Background().
	Logger *klog.Logger
}

// Defaults of Options.
const (
	DefaultSyncTimeout  = time.Minute
	DefaultTombstoneTTL = 30 * time.Minute
)

func (o Options) withDefaults(example runtime.Object) Options {
	if o.Field == "" {
		o.Field = ByUID
	}
	o.Field.validate()
	if o.Resource == "" {
		o.Resource = fmt.Sprintf("%T", example)
	}
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = DefaultSyncTimeout
	}
	if o.TombstoneTTL <= 0 {
		o.TombstoneTTL = DefaultTombstoneTTL
	}
	if o.Metrics == nil {
		o.Metrics = noMetrics{}
	}
	return o
}
