package shardcache

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestIgnoredSelectorSharesOneWatch checks that once the server is seen to ignore shard
// selectors, the buckets' informers share one watch of the whole collection, and that each
// still receives its bucket's changes, and only those, as it did on its own watch.
func TestIgnoredSelectorSharesOneWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, false)
		srv.populate(90)
		rec := &recorder{}
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{Metrics: rec})
		inf.AddEventHandler(rec.handler())
		running(t, inf)
		held := []int{0, 2, 3, 5}
		for _, b := range held {
			if err := inf.Prepare(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()                                                      // its informer watches: the next bucket's list comes after
			srv.put("ns-new", fmt.Sprintf("during-%d", b), testUID(1000+b), "0") // a change between the preparations
		}
		synctest.Wait()
		if n := srv.watching(); n != 1 {
			t.Errorf("%d watches open for %d buckets on a server that ignores selectors; want one", n, len(held))
		}
		rec.take()
		var want []string
		for i := range 90 {
			cm := srv.put(fmt.Sprintf("ns-%d", i%7), fmt.Sprintf("cm-%d", i), testUID(i), "1")
			if slices.Contains(held, srv.bucketOf(cm)) {
				want = append(want, "update "+cm.Namespace+"/"+cm.Name)
			}
		}
		synctest.Wait()
		got := rec.take()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("events %v;\nwant %v", got, want)
		}
		if want := srv.keysIn(held...); !maps.Equal(keysOf(inf), want) {
			t.Errorf("%d objects cached; want the %d of buckets %v", len(keysOf(inf)), len(want), held)
		}
		inf.Release(2)
		synctest.Wait()
		if n := srv.watching(); n != 1 {
			t.Errorf("%d watches open after a release; want one", n)
		}
	})
}

// TestSubscriptionFromTooFarBack checks that a bucket's watch from a resourceVersion that the
// shared watch no longer replays is refused (the bucket then watches on its own), and that the
// watch of a subscriber too slow to take its events is closed (a client-go informer then
// watches again from the last event it took).
func TestSubscriptionFromTooFarBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, false)
		srv.populate(10)
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{})
		running(t, inf)
		if err := inf.Prepare(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, ok, _ := inf.up.subscribe(1, "5"); ok {
			t.Error("a subscription from before the shared watch began was taken")
		}
		if _, ok, _ := inf.up.subscribe(1, "not-a-number"); ok {
			t.Error("a subscription from a resourceVersion that is not a number was taken")
		}
		b := srv.bucketOf(srv.put("ns", "slow", testUID(9999), "0"))
		synctest.Wait()
		slow, ok, err := inf.up.subscribe(b, strconv.Itoa(srv.rv))
		if !ok || err != nil {
			t.Fatalf("subscribe from now: ok %v, %v", ok, err)
		}
		for i := range subscriptionBuffer + 1 { // never read: the subscriber is too slow
			srv.put("ns", "slow", testUID(9999), fmt.Sprint(i))
		}
		synctest.Wait()
		n := 0
		for range slow.ResultChan() {
			n++
		}
		if n != subscriptionBuffer {
			t.Fatalf("the slow subscriber's watch gave %d events, then closed; want the %d it had room for", n, subscriptionBuffer)
		}
		if want := srv.keysIn(1); !maps.Equal(keysOf(inf), want) {
			t.Errorf("%d objects cached; want %d", len(keysOf(inf)), len(want))
		}
	})
}

// TestSharedWatchFails checks that when the shared watch fails (expired), every bucket's
// informer lists again and gets back on a new shared watch, losing no change.
func TestSharedWatchFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, false)
		srv.populate(60)
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{})
		running(t, inf)
		held := []int{1, 4}
		for _, b := range held {
			if err := inf.Prepare(context.Background(), b); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		lists := len(srv.listed())
		srv.failWatches()
		for i := range 60 {
			srv.put(fmt.Sprintf("ns-%d", i%7), fmt.Sprintf("cm-%d", i), testUID(i), "2")
		}
		time.Sleep(10 * time.Second) // the reflectors' backoff
		synctest.Wait()
		if relists := len(srv.listed()) - lists; relists != len(held) {
			t.Errorf("%d lists after the shared watch failed; want one per bucket, %d", relists, len(held))
		}
		for _, obj := range inf.GetStore().List() {
			if cm := obj.(*corev1.ConfigMap); cm.Data["d"] != "2" {
				t.Errorf("%s/%s at %q after the failure; want the change made since", cm.Namespace, cm.Name, cm.Data["d"])
			}
		}
		if n := srv.watching(); n != 1 {
			t.Errorf("%d watches open after the recovery; want one", n)
		}
	})
}

// TestReplay checks that a bucket's watch from a resourceVersion the shared watch has passed
// gets the bucket's events since then from replay, and only those.
func TestReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, false)
		srv.populate(10)
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{})
		running(t, inf)
		if err := inf.Prepare(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		from := srv.rv
		var want []string
		for i := range 40 {
			cm := srv.put("ns", fmt.Sprintf("later-%d", i), testUID(2000+i), "0")
			if srv.bucketOf(cm) == 3 {
				want = append(want, cm.ResourceVersion)
			}
		}
		synctest.Wait()
		w, ok, err := inf.up.subscribe(3, strconv.Itoa(from))
		if !ok || err != nil {
			t.Fatalf("subscribe from %d: ok %v, %v", from, ok, err)
		}
		defer w.Stop()
		var got []string
		for range want {
			e := <-w.ResultChan()
			got = append(got, e.Object.(*corev1.ConfigMap).ResourceVersion)
		}
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("replayed resourceVersions %v; want bucket 3's since %d, %v", got, from, want)
		}
		select {
		case e := <-w.ResultChan():
			t.Errorf("an event beyond the replay: %s %v", e.Type, e.Object)
		default:
		}
	})
}

// TestIgnoredSelectorSharesLists checks that the Informer finds out that the server ignores
// shard selectors before any bucket lists (one small probe), and that buckets prepared
// together then share one list of the whole collection, each keeping its part.
func TestIgnoredSelectorSharesLists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(ByUID, testBuckets, false)
		srv.populate(90)
		inf := New(newSharder(testBuckets), srv, &corev1.ConfigMap{}, Options{})
		running(t, inf)
		synctest.Wait() // the Informer's probe finds that the server ignores selectors
		if got := srv.listed(); len(got) != 1 || got[0] == "" {
			t.Fatalf("lists %q when the Informer starts; want one probe, with a selector", got)
		}
		srv.gate = make(chan struct{})
		errs := make(chan error, 3)
		for _, b := range []int{1, 3, 4} {
			go func() { errs <- inf.Prepare(context.Background(), b) }()
		}
		synctest.Wait() // the three lists wait for the first
		close(srv.gate)
		for range 3 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if lists := len(srv.listed()) - 1; lists != 1 {
			t.Errorf("%d lists for three buckets prepared together; want one, shared", lists)
		}
		if want := srv.keysIn(1, 3, 4); !maps.Equal(keysOf(inf), want) {
			t.Errorf("%d objects cached; want the %d of buckets 1, 3 and 4", len(keysOf(inf)), len(want))
		}
	})
}
