package shardcache

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue/sharding"
)

const testBuckets = 6

// keysOf returns the keys the Informer's store holds, as a set.
func keysOf(inf *Informer) map[string]bool {
	keys := make(map[string]bool)
	for _, key := range inf.GetStore().ListKeys() {
		if keys[key] {
			panic("key twice in the store: " + key)
		}
		keys[key] = true
	}
	return keys
}

// TestCachesHeldBucketsOnly checks, for both fields and for a server that applies the shard
// selector and one that ignores it, that the Informer caches exactly the objects of the
// buckets prepared: a bucket's objects arrive with its preparation (as Add events), leave
// with its release (without Delete events), and the store never holds another's. A server
// that ignores the selector is reported once, and its extra objects counted.
func TestCachesHeldBucketsOnly(t *testing.T) {
	for _, field := range []Field{ByUID, ByNamespace} {
		for _, honours := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/honoured=%v", field, honours), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := newServer(field, testBuckets, honours)
					srv.populate(300)
					rec := &recorder{}
					inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{Field: field, Metrics: rec})
					if _, err := inf.AddEventHandler(rec.handler()); err != nil {
						t.Fatal(err)
					}
					running(t, inf)
					synctest.Wait()
					if !inf.HasSynced() || len(keysOf(inf)) != 0 {
						t.Fatalf("before any bucket: synced %v, %d objects; want synced and empty", inf.HasSynced(), len(keysOf(inf)))
					}
					ctx := context.Background()
					var held []int
					for _, step := range []struct {
						prepare bool
						bucket  int
					}{{true, 1}, {true, 4}, {true, 0}, {false, 4}, {false, 1}, {true, 4}} {
						if step.prepare {
							if err := inf.Prepare(ctx, step.bucket); err != nil {
								t.Fatal(err)
							}
							held = append(held, step.bucket)
						} else {
							inf.Release(step.bucket)
							held = slices.DeleteFunc(held, func(b int) bool { return b == step.bucket })
						}
						synctest.Wait()
						want := srv.keysIn(held...)
						if got := keysOf(inf); !maps.Equal(got, want) {
							t.Fatalf("holding %v: %d objects cached; want the %d of those buckets", held, len(got), len(want))
						}
						events := rec.take()
						if step.prepare {
							var added []string
							for key := range srv.keysIn(step.bucket) {
								added = append(added, "add "+key)
							}
							slices.Sort(added)
							slices.Sort(events)
							if !slices.Equal(events, added) {
								t.Fatalf("preparing bucket %d: events %v; want an Add of each of its %d objects", step.bucket, events, len(added))
							}
						} else if len(events) > 0 {
							t.Fatalf("releasing bucket %d: events %v; want none", step.bucket, events)
						}
						if rec.cached != len(want) {
							t.Fatalf("Metrics.Cached %d; want %d", rec.cached, len(want))
						}
					}
					if want := []int{1, 4, 0, 4}; !slices.Equal(rec.synced, want) {
						t.Errorf("Metrics.Synced for buckets %v; want %v", rec.synced, want)
					}
					for i, selector := range srv.listed() {
						// The Informer's probe (list 0) finds out whether the server
						// applies selectors; if not, the buckets share lists of the whole
						// collection.
						if selector == "" && (honours || i == 0) {
							t.Errorf("list %d without a shard selector", i)
						}
						if selector != "" && !honours && i > 0 {
							t.Errorf("list %d with a shard selector, after the probe found the server ignores them", i)
						}
					}
					switch {
					case honours && (rec.ignored != 0 || rec.filtered != 0):
						t.Errorf("a server that applies the selector: reported ignoring it %d times, %d objects filtered; want none", rec.ignored, rec.filtered)
					case !honours && rec.ignored != 1:
						t.Errorf("a server that ignores the selector: reported %d times; want once", rec.ignored)
					case !honours && rec.filtered != 4*300-len(srv.keysIn(1, 4, 0))-len(srv.keysIn(4)):
						t.Errorf("%d objects filtered; want every object listed for a bucket it is not in", rec.filtered)
					}
				})
			})
		}
	}
}

// TestEventsOfHeldBucketsOnly checks that the watch of each bucket passes on the changes of
// its objects only, creations, updates and deletions, whether the server selects them or
// not.
func TestEventsOfHeldBucketsOnly(t *testing.T) {
	for _, honours := range []bool{true, false} {
		t.Run(fmt.Sprintf("honoured=%v", honours), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newServer(ByUID, testBuckets, honours)
				srv.populate(60)
				rec := &recorder{}
				inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{Metrics: rec})
				inf.AddEventHandler(rec.handler())
				running(t, inf)
				for _, b := range []int{2, 5} {
					if err := inf.Prepare(context.Background(), b); err != nil {
						t.Fatal(err)
					}
				}
				synctest.Wait()
				rec.take()
				var want []string
				for i := range 60 {
					key := fmt.Sprintf("ns-%d/cm-%d", i%7, i)
					var cm *corev1.ConfigMap
					switch i % 3 {
					case 0:
						cm = srv.put(fmt.Sprintf("ns-%d", i%7), fmt.Sprintf("cm-%d", i), testUID(i), "1")
						if b := srv.bucketOf(cm); b == 2 || b == 5 {
							want = append(want, "update "+key)
						}
					case 1:
						cm = srv.objects[key]
						srv.remove(key)
						if b := srv.bucketOf(cm); b == 2 || b == 5 {
							want = append(want, "delete "+key)
						}
					default:
						cm = srv.put("new", fmt.Sprintf("cm-%d", i), types.UID(fmt.Sprintf("new-%d", i)), "0")
						if b := srv.bucketOf(cm); b == 2 || b == 5 {
							want = append(want, "add new/"+cm.Name)
						}
					}
				}
				synctest.Wait()
				got := rec.take()
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("events %v;\nwant %v", got, want)
				}
				if want := srv.keysIn(2, 5); !maps.Equal(keysOf(inf), want) {
					t.Errorf("%d objects cached; want %d", len(keysOf(inf)), len(want))
				}
			})
		})
	}
}

// TestPrepareWaitsForSync checks that Prepare returns only once the bucket's list has been
// answered, fails once SyncTimeout passes, and fails at once when its context ends.
func TestPrepareWaitsForSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, true)
		srv.populate(30)
		srv.gate = make(chan struct{})
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{SyncTimeout: 10 * time.Second})
		running(t, inf)
		prepared := make(chan error, 1)
		start := time.Now()
		go func() { prepared <- inf.Prepare(context.Background(), 3) }()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		select {
		case err := <-prepared:
			t.Fatalf("Prepare returned %v before the list was answered", err)
		default:
		}
		close(srv.gate)
		if err := <-prepared; err != nil || time.Since(start) != 5*time.Second {
			t.Fatalf("Prepare: %v after %v; want nil once the list is answered, at 5 s", err, time.Since(start))
		}
		if want := srv.keysIn(3); !maps.Equal(keysOf(inf), want) {
			t.Fatalf("%d objects cached; want %d", len(keysOf(inf)), len(want))
		}

		srv.gate = make(chan struct{})
		start = time.Now()
		if err := inf.Prepare(context.Background(), 1); err == nil || time.Since(start) != 10*time.Second {
			t.Fatalf("Prepare of an unanswered list: %v after %v; want an error at the 10 s SyncTimeout", err, time.Since(start))
		}
		inf.Release(1)
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			time.Sleep(time.Second)
			cancel(fmt.Errorf("lost"))
		}()
		start = time.Now()
		if err := inf.Prepare(ctx, 2); err == nil || err.Error() != "lost" || time.Since(start) != time.Second {
			t.Fatalf("Prepare whose context ends: %v after %v; want its cause, at once", err, time.Since(start))
		}
		inf.Release(2)
		close(srv.gate)
	})
}

// TestBucketStart checks that the hash Hash returns for a bucket is in that bucket.
func TestBucketStart(t *testing.T) {
	for buckets := 1; buckets <= 70; buckets++ {
		for b := range buckets {
			if got := sharding.BucketOf(bucketStart(b, buckets), buckets); got != b {
				t.Fatalf("BucketOf(bucketStart(%d, %d)) = %d", b, buckets, got)
			}
			if b > 0 && sharding.BucketOf(bucketStart(b, buckets)-1, buckets) != b-1 {
				t.Fatalf("bucketStart(%d, %d) is not the first hash of the bucket", b, buckets)
			}
		}
	}
}

// TestReleaseFreesBucket checks that nothing of the Informer keeps a released bucket's
// informer: its handlers' registrations with it go too.
func TestReleaseFreesBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, true)
		srv.populate(30)
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{})
		reg, _ := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		running(t, inf)
		synctest.Wait()
		if !reg.HasSynced() {
			t.Fatal("the handler has not synced")
		}
		for _, b := range []int{1, 2} {
			if err := inf.Prepare(context.Background(), b); err != nil {
				t.Fatal(err)
			}
		}
		late, _ := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		synctest.Wait()
		if !late.HasSynced() {
			t.Fatal("the handler added with two buckets watched has not synced")
		}
		inf.Release(1)
		inf.Release(2)
		for _, r := range []*registration{reg.(*registration), late.(*registration)} {
			if len(r.shards) != 0 || len(r.first) != 0 {
				t.Errorf("a handler keeps %d registrations with released buckets (and %d first)", len(r.shards), len(r.first))
			}
		}
	})
}
