package sharding

import (
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apisharding "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
)

// TestHashIsTheServers checks Hash against apimachinery's HashField, which the API server
// evaluates for shardRange() selectors.
func TestHashIsTheServers(t *testing.T) {
	for _, v := range []string{"", "default", "kube-system", "9f0c2f2e-1b5e-4d8c-a1f3-6c1d7e2b9a10"} {
		if got, want := strconv.FormatUint(Hash(v), 16), apisharding.HashField(v); padded(got) != want {
			t.Errorf("Hash(%q) = %s, apimachinery's HashField = %s", v, padded(got), want)
		}
	}
}

// TestHashKeySpreadsKeysThatDifferAtTheEnd: the default hash spreads keys that differ only in
// their last characters, as controllers' names often do, over every bucket, and no bucket gets
// more than three times its share (FNV-1a alone put "default/cm-000" to "default/cm-099" in one
// bucket of 12, and 1,000 such keys in 4).
func TestHashKeySpreadsKeysThatDifferAtTheEnd(t *testing.T) {
	for _, keys := range []int{100, 1000} {
		for _, buckets := range []int{4, 12, 16} {
			count := make([]int, buckets)
			for i := range keys {
				count[BucketOf(HashKey(fmt.Sprintf("default/cm-%03d", i)), buckets)]++
			}
			for b, n := range count {
				if n == 0 || n > 3*keys/buckets {
					t.Errorf("%d keys over %d buckets: bucket %d got %d (all: %v)", keys, buckets, b, n, count)
					break
				}
			}
		}
	}
}

func padded(hex string) string {
	for len(hex) < 16 {
		hex = "0" + hex
	}
	return hex
}

// TestSelectorMatchesBucket checks that the selector of each bucket, evaluated by
// apimachinery's own selector, matches exactly the objects whose key falls in that bucket,
// for UIDs and for namespaces.
func TestSelectorMatchesBucket(t *testing.T) {
	for _, buckets := range []int{1, 2, 3, 7, 16} {
		for i := range 300 {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
				Namespace: "ns-" + strconv.Itoa(i%37),
				Name:      "pod-" + strconv.Itoa(i),
				UID:       types.UID("uid-" + strconv.Itoa(i*7919)),
			}}
			key := pod.Namespace + "/" + pod.Name
			for b := range buckets {
				for _, field := range []struct {
					path string
					mine bool
				}{
					{"object.metadata.uid", BucketOf(Hash(string(pod.UID)), buckets) == b},
					{"object.metadata.namespace", BucketOf(HashNamespace(key), buckets) == b},
				} {
					sel := selectorOf(t, field.path, buckets, b)
					got, err := sel.Matches(pod)
					if err != nil {
						t.Fatal(err)
					}
					if got != field.mine {
						t.Fatalf("%d buckets, bucket %d, %s of %s: selector matches %v, BucketOf says %v", buckets, b, field.path, key, got, field.mine)
					}
				}
			}
		}
	}
}

// selectorOf rebuilds, from ShardSelector's string, apimachinery's selector for one bucket.
func selectorOf(t *testing.T, field string, buckets, b int) apisharding.Selector {
	t.Helper()
	want := apisharding.NewSelector(apisharding.ShardRangeRequirement{Key: field, Start: rangeStart(b, buckets), End: rangeStart(b+1, buckets)})
	if got := ShardSelector(field, buckets, b); got != want.String() {
		t.Fatalf("ShardSelector = %q, want %q", got, want.String())
	}
	return want
}

func TestBucketEdges(t *testing.T) {
	if got := BucketOf(0, 5); got != 0 {
		t.Errorf("BucketOf(0, 5) = %d", got)
	}
	if got := BucketOf(^uint64(0), 5); got != 4 {
		t.Errorf("BucketOf(max, 5) = %d", got)
	}
	if got := rangeStart(1, 2); got != "0x8000000000000000" {
		t.Errorf("rangeStart(1, 2) = %s", got)
	}
	if got := ShardSelector("object.metadata.uid", 2, 0, 1); got != "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')" {
		t.Errorf("ShardSelector of both halves = %s", got)
	}
	if got := ShardSelector("object.metadata.uid", 2); got != "" {
		t.Errorf("ShardSelector of no bucket = %q, want empty", got)
	}
}
