package sharding

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestSupersededFollowsTheBucket checks Queue.Superseded: false for a key nobody added again
// while its bucket is held; true once it is added again (the wrapped queue's answer); true,
// without any add, once the replica can no longer reach the API server and the key's
// context ends (the bucket will be someone else's, or the key processed here again); false
// for a key not in processing.
func TestSupersededFollowsTheBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		defer o.close()
		if o.queue.Superseded("k") {
			t.Error("Superseded true for a key not in processing")
		}
		key, _ := o.queue.Get()
		time.Sleep(5 * time.Second) // renewals go on
		if o.queue.Superseded(key) {
			t.Fatal("Superseded true for a key nobody added again, its bucket held")
		}
		o.queue.Add(key)
		if !o.queue.Superseded(key) {
			t.Error("Superseded false for a key added again since Get")
		}
		o.queue.Done(key)
		key, _ = o.queue.Get()
		if o.queue.Superseded(key) {
			t.Fatal("Superseded true for a key handed out again, nobody adding it since")
		}
		ctx := o.queue.Context(key)
		o.link.cut.Store(true)
		<-ctx.Done()
		if !o.queue.Superseded(key) {
			t.Error("Superseded false for a key whose context ended with the replica cut off")
		}
		o.queue.Done(key)
		if o.queue.Superseded(key) {
			t.Error("Superseded true for a key done")
		}
		o.link.cut.Store(false)
	})
}
