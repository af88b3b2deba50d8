package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
)

// TestServerShardSelector checks, on kube-apiserver v1.37.2 itself, the facts about
// server-side sharded list and watch (KEP-5866) that package shardcache relies on:
//
//   - with ShardedListAndWatch on, metav1.ListOptions.ShardSelector selects exactly the
//     objects whose FNV-1a hash of the field lies in one of the ranges, for a list from etcd,
//     from the watch cache (resourceVersion "0"), page by page, for a watch (deletions
//     included), and for a streaming list (sendInitialEvents); and every list response
//     echoes the selector in ListMeta.ShardInfo, in apimachinery's format;
//   - with the gate off, the server ignores the field: it sends every object, and no
//     ShardInfo.
func TestServerShardSelector(t *testing.T) {
	needEnv(t)
	for _, server := range []struct {
		name    string
		cluster func(*testing.T) *cluster.Cluster
		honours bool
	}{
		{"gate-on", func(*testing.T) *cluster.Cluster { return env.cluster }, true},
		{"gate-off", needGateOff, false},
	} {
		t.Run(server.name, func(t *testing.T) {
			c := server.cluster(t)
			cfg := c.Config("")
			cfg.QPS, cfg.Burst = 1000, 1000 // client-go's default of 5 a second would pace the test
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, field := range []string{"object.metadata.uid", "object.metadata.namespace"} {
				t.Run(field, func(t *testing.T) { checkShardSelector(t, client, field, server.honours) })
			}
		})
	}
}

// checkShardSelector runs the checks of TestServerShardSelector with field, on a server that
// honours the selector or not.
func checkShardSelector(t *testing.T, client kubernetes.Interface, field string, honours bool) {
	ctx := context.Background()
	const buckets = 4
	held := []int{1, 2}
	selector := sharding.ShardSelector(field, buckets, held...)
	// Namespaces whose names differ at their start, where FNV-1a's high bits (the bucket)
	// depend on them: names that differ only at their end share a bucket.
	prefix := fmt.Sprintf("facts-%d-%s", time.Now().UnixNano()%1e6, map[string]string{"object.metadata.uid": "u", "object.metadata.namespace": "n"}[field])
	var namespaces []string
	for i := range 8 {
		ns := fmt.Sprintf("%c%d-%s", 'a'+i, i, prefix)
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		namespaces = append(namespaces, ns)
	}
	all := map[string]*corev1.ConfigMap{} // by namespace/name
	create := func(ns, name string) *corev1.ConfigMap {
		cm, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{"facts": prefix}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		all[ns+"/"+name] = cm
		return cm
	}
	for i := range 64 {
		create(namespaces[i%len(namespaces)], fmt.Sprintf("cm-%02d", i))
	}
	in := func(cm *corev1.ConfigMap) bool {
		value := string(cm.UID)
		if field == "object.metadata.namespace" {
			value = cm.Namespace
		}
		return slices.Contains(held, sharding.BucketOf(sharding.Hash(value), buckets))
	}
	want := func() []string {
		var keys []string
		for key, cm := range all {
			if !honours || in(cm) {
				keys = append(keys, key)
			}
		}
		slices.Sort(keys)
		return keys
	}
	if n := len(want()); honours && (n == 0 || n == len(all)) {
		t.Fatalf("%d of %d objects in buckets %v: the test needs some on both sides", n, len(all), held)
	}
	label := metav1.ListOptions{LabelSelector: "facts=" + prefix, ShardSelector: selector}

	// Lists: from etcd, from the watch cache, and by pages.
	for _, list := range []struct {
		name string
		opts func(metav1.ListOptions) metav1.ListOptions
	}{
		{"etcd", func(o metav1.ListOptions) metav1.ListOptions { return o }},
		{"watch cache", func(o metav1.ListOptions) metav1.ListOptions { o.ResourceVersion = "0"; return o }},
		{"pages of 5", func(o metav1.ListOptions) metav1.ListOptions { o.Limit = 5; return o }},
	} {
		var got []string
		opts := list.opts(label)
		for {
			page, err := client.CoreV1().ConfigMaps("").List(ctx, opts)
			if err != nil {
				t.Fatalf("list (%s): %v", list.name, err)
			}
			for _, cm := range page.Items {
				got = append(got, cm.Namespace+"/"+cm.Name)
			}
			switch info := page.ShardInfo; {
			case honours && (info == nil || info.Selector != selector):
				t.Errorf("list (%s): ShardInfo %+v; want the selector echoed, %q", list.name, info, selector)
			case !honours && info != nil:
				t.Errorf("list (%s): ShardInfo %+v from a server with the gate off; want none", list.name, info)
			}
			if opts.Continue = page.Continue; opts.Continue == "" {
				break
			}
		}
		slices.Sort(got)
		if w := want(); !slices.Equal(got, w) {
			t.Errorf("list (%s): %d objects; want %d (honoured: %v)\n got %v\nwant %v", list.name, len(got), len(w), honours, got, w)
		}
	}
	start, err := client.CoreV1().ConfigMaps("").List(ctx, label)
	if err != nil {
		t.Fatal(err)
	}

	// A watch from that list: creations, updates and deletions of objects in and out of range.
	w, err := client.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{LabelSelector: label.LabelSelector,
		ShardSelector: selector, ResourceVersion: start.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	changed := map[string]bool{}
	for i := range 16 {
		cm := create(namespaces[i%len(namespaces)], fmt.Sprintf("new-%02d", i))
		changed["ADDED "+cm.Namespace+"/"+cm.Name] = !honours || in(cm)
	}
	for i := range 16 {
		key := fmt.Sprintf("%s/cm-%02d", namespaces[i%len(namespaces)], i)
		cm := all[key]
		if err := client.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		changed["DELETED "+key] = !honours || in(cm)
		delete(all, key)
	}
	var wantEvents []string
	for event, seen := range changed {
		if seen {
			wantEvents = append(wantEvents, event)
		}
	}
	slices.Sort(wantEvents)
	gotEvents := collect(t, w, len(wantEvents), nil)
	if !slices.Equal(gotEvents, wantEvents) {
		t.Errorf("watch: %d events; want %d (honoured: %v)\n got %v\nwant %v", len(gotEvents), len(wantEvents), honours, gotEvents, wantEvents)
	}

	// A streaming list: the initial events, then the bookmark that ends them.
	stream, err := client.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{LabelSelector: label.LabelSelector,
		ShardSelector: selector, SendInitialEvents: ptr.To(true), AllowWatchBookmarks: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Stop()
	var initial []string
	for _, key := range want() {
		initial = append(initial, "ADDED "+key)
	}
	var bookmarked bool
	if got := collect(t, stream, len(initial), &bookmarked); !slices.Equal(got, initial) || !bookmarked {
		t.Errorf("streaming list: %d initial events, bookmark %v; want %d and the bookmark\n got %v\nwant %v", len(got), bookmarked, len(initial), got, initial)
	}

	// A malformed selector: refused with the gate on, ignored with it off.
	_, err = client.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{LabelSelector: label.LabelSelector, ShardSelector: "shardRange(object.metadata.name, '0x0', '0x1')"})
	switch {
	case honours && err == nil:
		t.Error("a selector on an unsupported field was accepted")
	case honours:
		t.Logf("a selector on an unsupported field: %v (HTTP %d, reason %q)", err, statusCode(err), apierrors.ReasonForError(err))
	case err != nil:
		t.Errorf("the gate off, a malformed selector failed the list: %v", err)
	}
}

// collect reads n events (and, if bookmarked is not nil, up to the bookmark that ends a
// streaming list's initial events) from w, and returns them as "TYPE namespace/name", sorted.
// It waits up to 30 s.
func collect(t *testing.T, w watch.Interface, n int, bookmarked *bool) []string {
	t.Helper()
	var got []string
	deadline := time.After(30 * time.Second)
	for len(got) < n || (bookmarked != nil && !*bookmarked) {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d events", len(got))
			}
			cm, isCM := e.Object.(*corev1.ConfigMap)
			switch {
			case e.Type == watch.Bookmark && bookmarked != nil && cm != nil && cm.Annotations[metav1.InitialEventsAnnotationKey] == "true":
				*bookmarked = true
			case e.Type == watch.Bookmark:
			case isCM:
				got = append(got, string(e.Type)+" "+cm.Namespace+"/"+cm.Name)
			default:
				t.Fatalf("watch event %s %T", e.Type, e.Object)
			}
		case <-deadline:
			t.Fatalf("%d of %d events within 30 s: %v", len(got), n, got)
		}
	}
	// Events beyond n would show as a mismatch: wait a moment for strays.
	select {
	case e := <-w.ResultChan():
		if cm, ok := e.Object.(*corev1.ConfigMap); ok && e.Type != watch.Bookmark {
			got = append(got, string(e.Type)+" "+cm.Namespace+"/"+cm.Name)
		}
	case <-time.After(500 * time.Millisecond):
	}
	slices.Sort(got)
	return got
}

// statusCode returns the HTTP status of an API error, or 0.
func statusCode(err error) int32 {
	if status, ok := err.(apierrors.APIStatus); ok {
		return status.Status().Code
	}
	return 0
}
