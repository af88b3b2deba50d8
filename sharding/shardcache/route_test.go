package shardcache

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/actorqueue/workqueue/sharding"
)

// uidIn returns a UID whose hash is in bucket b, made from seed.
func uidIn(b int, seed string) types.UID {
	for i := 0; ; i++ {
		uid := fmt.Sprintf("%s-%d", seed, i)
		if sharding.BucketOf(sharding.Hash(uid), testBuckets) == b {
			return types.UID(uid)
		}
	}
}

// TestHashRoutesKeys checks the bucket Hash gives a key, by UID: its object's while cached
// here; the bucket it was deleted from while its tombstone lasts, even when an object of
// the same name lives in a bucket another replica holds; a bucket not prepared here for a key
// of no object cached, so that the queue drops it; and HashKey's bucket once every bucket is
// prepared here.
func TestHashRoutesKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, true)
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{TombstoneTTL: time.Hour})
		inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		running(t, inf)
		bucket := func(key string) int { return sharding.BucketOf(inf.Hash(key), testBuckets) }
		prepared := []int{1, 3}
		for _, b := range prepared {
			if err := inf.Prepare(context.Background(), b); err != nil {
				t.Fatal(err)
			}
		}
		srv.put("ns", "a", uidIn(1, "a"), "")
		srv.put("ns", "b", uidIn(3, "b"), "")
		srv.put("ns", "c", uidIn(2, "c"), "") // another replica's
		synctest.Wait()
		for key, want := range map[string]int{"ns/a": 1, "ns/b": 3} {
			if got := bucket(key); got != want {
				t.Errorf("bucket of %s, cached in %d: %d", key, want, got)
			}
		}
		unknown := []string{"ns/c"}
		for i := range 50 {
			unknown = append(unknown, fmt.Sprintf("ns/never-%d", i))
		}
		for _, key := range unknown {
			if got := bucket(key); slices.Contains(prepared, got) {
				t.Errorf("bucket of %s, of no object cached here: %d, prepared here", key, got)
			}
		}

		// Deleted, then created again under the same name in a bucket not held here: the
		// deletion stays with bucket 1 for the TTL.
		srv.remove("ns/a")
		synctest.Wait()
		if got := bucket("ns/a"); got != 1 {
			t.Errorf("bucket of ns/a, deleted from 1: %d", got)
		}
		srv.put("ns", "a", uidIn(4, "a2"), "")
		synctest.Wait()
		if got := bucket("ns/a"); got != 1 {
			t.Errorf("bucket of ns/a, deleted from 1 and created in 4 (not held): %d", got)
		}
		// Created again in a bucket held here: the live object wins.
		srv.remove("ns/a")
		srv.put("ns", "a", uidIn(3, "a3"), "")
		synctest.Wait()
		if got := bucket("ns/a"); got != 3 {
			t.Errorf("bucket of ns/a, deleted from 1, created in 3 (held): %d", got)
		}
		srv.remove("ns/a")
		synctest.Wait()
		time.Sleep(time.Hour)
		if got := bucket("ns/a"); slices.Contains(prepared, got) {
			t.Errorf("bucket of ns/a an hour after its deletion: %d, prepared here; want its tombstone gone", got)
		}
		// A released bucket's objects are no longer ours.
		inf.Release(3)
		prepared = []int{1}
		if got := bucket("ns/b"); slices.Contains(prepared, got) {
			t.Errorf("bucket of ns/b after bucket 3's release: %d, prepared here", got)
		}

		// Every bucket prepared: a key of no object keeps HashKey's bucket.
		for b := range testBuckets {
			if err := inf.Prepare(context.Background(), b); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := bucket("ns/never"), sharding.BucketOf(sharding.HashKey("ns/never"), testBuckets); got != want {
			t.Errorf("bucket of ns/never with every bucket prepared: %d; want HashKey's, %d", got, want)
		}
		if got := bucket("ns/c"); got != 2 {
			t.Errorf("bucket of ns/c with every bucket prepared: %d; want 2", got)
		}
	})
}

// TestHashByNamespace checks that with ByNamespace a key's bucket is its namespace's,
// whatever is cached.
func TestHashByNamespace(t *testing.T) {
	inf := New(newSharder(testBuckets), newServer(ByNamespace, testBuckets, true), &corev1.ConfigMap{}, Options{Field: ByNamespace})
	for _, key := range []string{"a/x", "b/y", "cluster-scoped"} {
		if got, want := inf.Hash(key), sharding.HashNamespace(key); got != want {
			t.Errorf("Hash(%q) = %x; want HashNamespace's %x", key, got, want)
		}
	}
}

// TestDeletionNotedBeforeHandler checks that a handler adding a deleted object's key to a
// queue finds the key's bucket: the deletion is noted before any handler sees it.
func TestDeletionNotedBeforeHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, true)
		srv.put("ns", "a", uidIn(2, "a"), "")
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{})
		var seen []int
		inf.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			seen = append(seen, inf.Bucket(key))
		}})
		running(t, inf)
		if err := inf.Prepare(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		srv.remove("ns/a")
		synctest.Wait()
		if !slices.Equal(seen, []int{2}) {
			t.Errorf("the delete handler saw the key in buckets %v; want [2]", seen)
		}
	})
}
