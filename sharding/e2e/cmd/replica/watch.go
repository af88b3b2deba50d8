package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
	"github.com/actorqueue/workqueue/sharding/shardcache"
)

// Values of the -watch flag: how the replica's informer watches the ConfigMaps.
const (
	watchWhole     = ""          // one informer of every ConfigMap, as a controller without shardcache
	watchUID       = "uid"       // shardcache.ByUID
	watchNamespace = "namespace" // shardcache.ByNamespace
)

// field returns the shardcache field of a -watch value other than watchWhole.
func field(watch string) shardcache.Field {
	if watch == watchNamespace {
		return shardcache.ByNamespace
	}
	return shardcache.ByUID
}

// watchStats is what the replica measures of its watch: the events its handlers received, the
// objects the sharded informers dropped as outside their bucket, and the bytes of the API
// server's answers about ConfigMaps. It is a shardcache.Metrics that records in the record.
type watchStats struct {
	rec      *record.Writer
	events   atomic.Int64
	filtered atomic.Int64
	bytes    atomic.Int64
}

var _ shardcache.Metrics = (*watchStats)(nil)

func (w *watchStats) SelectorIgnored(string) { w.rec.Write(record.Event{Kind: record.Ignored}) }

func (w *watchStats) Filtered(_ string, n int) { w.filtered.Add(int64(n)) }

func (w *watchStats) Synced(_ string, bucket int, d time.Duration) {
	w.rec.Write(record.Event{Kind: record.Synced, Bucket: bucket, Drain: d})
}

func (w *watchStats) Cached(_ string, buckets []int, n int) {
	w.rec.Write(record.Event{Kind: record.Cached, Count: n, Buckets: buckets})
}

// counting returns handler wrapped so that it counts the events it receives.
func (w *watchStats) counting(handler cache.ResourceEventHandlerFuncs) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.events.Add(1); handler.AddFunc(obj) },
		UpdateFunc: func(old, obj any) { w.events.Add(1); handler.UpdateFunc(old, obj) },
		DeleteFunc: func(obj any) { w.events.Add(1); handler.DeleteFunc(obj) },
	}
}

// measure counts, in cfg's client, the bytes of the answers about ConfigMaps.
func (w *watchStats) measure(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, w} })
	return cfg
}

// reportOnSignal writes a Stats record each time the process receives SIGHUP, until ctx is
// done (SIGUSR1 and SIGUSR2 stall and release the reconciles: main.go); count returns the
// objects cached.
func (w *watchStats) reportOnSignal(ctx context.Context, count func() int) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGHUP)
	go func() {
		defer signal.Stop(signals)
		for {
			select {
			case <-ctx.Done():
				return
			case <-signals:
			}
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			w.rec.Write(record.Event{Kind: record.Stats, Count: count(), Heap: int64(m.HeapAlloc),
				Events: w.events.Load(), Filtered: w.filtered.Load(), Bytes: w.bytes.Load()})
		}
	}()
}

// countingTransport counts the bytes of the bodies of the answers about ConfigMaps.
type countingTransport struct {
	http.RoundTripper
	stats *watchStats
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(req)
	if err == nil && strings.Contains(req.URL.Path, "/configmaps") {
		resp.Body = countingBody{resp.Body, &t.stats.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
