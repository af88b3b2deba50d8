package shardcache

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// upstream is the one watch of the whole collection that the buckets' informers share once the
// API server is seen to ignore shard selectors: each bucket's watch would otherwise carry every
// change, so that the replica received each change once per bucket it holds. Each bucket's
// informer still lists on its own (a full list, filtered) when it starts or relists; its watch
// is a subscription to the upstream watch, from the resourceVersion of its list.
//
// It compares resourceVersions as numbers, as kube-apiserver's are (etcd revisions). It keeps
// the last events (replay) for subscriptions from a resourceVersion it has passed. A
// subscription from a resourceVersion that is not a number, or from before the shared watch's
// start or replay (a bucket listed just before another started the shared watch), is refused,
// and the bucket watches on its own until its watch ends. A subscriber that cannot keep up
// has its watch closed rather than hold the others back: its informer watches again from the
// last event it took, from replay or on its own. A shared watch that the server closes is
// opened again; one that fails passes its error (e.g. expired) on to every subscriber, whose
// informers then list again.
type upstream struct {
	inf *Informer

	listing sync.Mutex
	lists   map[string]*sharedList // the lists on their way, by their options

	mu      sync.Mutex
	subs    map[*subscription]struct{}
	watch   watch.Interface // nil while not watching
	at      uint64          // the resourceVersion of the last event passed on
	replay  []watch.Event   // the last events passed on, oldest first
	expired uint64          // events before this resourceVersion are no longer in replay
}

// replayEvents is how many events upstream keeps for subscriptions that start behind it.
const replayEvents = 1024

// subscriptionBuffer is how many events a subscription holds before its reader is too slow.
const subscriptionBuffer = 1024

// subscription is one bucket's watch on upstream.
type subscription struct {
	up     *upstream
	bucket int
	from   uint64 // events at or before it were in the bucket's list
	result chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

func (s *subscription) ResultChan() <-chan watch.Event { return s.result }

// Stop ends the subscription; it may be called more than once.
func (s *subscription) Stop() {
	s.once.Do(func() {
		s.up.mu.Lock()
		delete(s.up.subs, s)
		s.up.mu.Unlock()
		close(s.stop)
	})
}

// end ends the subscription, passing e on first if it is not nil and there is room for it.
// The caller holds up.mu.
func (s *subscription) end(e *watch.Event) {
	delete(s.up.subs, s)
	if e != nil {
		select {
		case s.result <- *e:
		default:
		}
	}
	close(s.result)
}

// subscribe returns bucket's watch from resourceVersion rv, starting the upstream watch if
// it does not run; ok is false if it cannot serve rv (see upstream).
func (up *upstream) subscribe(bucket int, rv string) (w watch.Interface, ok bool, err error) {
	from, perr := strconv.ParseUint(rv, 10, 64)
	if perr != nil || from == 0 {
		return nil, false, nil
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if up.watch == nil {
		if err := up.start(from); err != nil {
			return nil, true, err
		}
	}
	if from < up.expired {
		return nil, false, nil // before what the shared watch has: the bucket watches on its own
	}
	s := &subscription{up: up, bucket: bucket, from: from, result: make(chan watch.Event, subscriptionBuffer), stop: make(chan struct{})}
	for _, e := range up.replay {
		if version(e.Object) > from && up.belongs(e, bucket) {
			s.result <- e // the buffer holds every event of replay
		}
	}
	up.subs[s] = struct{}{}
	return s, true, nil
}

// start starts watching the whole collection from resourceVersion from. The caller holds
// up.mu.
func (up *upstream) start(from uint64) error {
	w, err := up.inf.lw.WatchWithContext(up.inf.runCtx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(from, 10), AllowWatchBookmarks: true})
	if err != nil {
		return err
	}
	up.watch, up.at, up.expired, up.replay = w, from, from, nil
	go up.pass(w)
	return nil
}

// pass passes w's events on to the subscriptions of their objects' buckets until w ends.
// A watch that the server closes (as it does every half hour or so) is opened again from the
// last resourceVersion passed on; one that fails (e.g. expired) passes its error on to every
// subscription and ends them, and the next subscription starts a new watch.
func (up *upstream) pass(w watch.Interface) {
	for {
		var failed *watch.Event
	events:
		for {
			select {
			case e, open := <-w.ResultChan():
				if !open {
					break events
				}
				if e.Type == watch.Error {
					failed = &e
					break events
				}
				up.deliver(e)
			case <-up.inf.runCtx.Done():
				break events
			}
		}
		w.Stop()
		up.mu.Lock()
		if failed == nil && up.inf.runCtx.Err() == nil {
			var err error
			if w, err = up.inf.lw.WatchWithContext(up.inf.runCtx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(up.at, 10), AllowWatchBookmarks: true}); err == nil {
				up.watch = w
				up.mu.Unlock()
				continue
			}
		}
		for s := range up.subs {
			s.end(failed) // the informers see the server's error (e.g. expired) and list again
		}
		up.watch = nil
		up.mu.Unlock()
		return
	}
}

// deliver passes e on to the subscriptions of its object's bucket, and keeps it for replay.
func (up *upstream) deliver(e watch.Event) {
	up.mu.Lock()
	defer up.mu.Unlock()
	v := version(e.Object)
	up.at = max(up.at, v)
	if e.Type == watch.Bookmark {
		for s := range up.subs {
			select {
			case s.result <- e:
			default: // a bookmark only saves a relist; the next one will do
			}
		}
		return
	}
	up.replay = append(up.replay, e)
	if len(up.replay) > replayEvents {
		up.expired = version(up.replay[0].Object)
		up.replay = append(up.replay[:0], up.replay[1:]...)
	}
	kept := false
	for s := range up.subs {
		if v > s.from && up.belongs(e, s.bucket) {
			kept = true
			select {
			case s.result <- e:
			default:
				s.end(nil) // too slow: its informer watches again from the last event it took
			}
		}
	}
	if !kept {
		up.inf.filtered(1)
	}
}

// belongs reports whether e's object is in bucket; an object whose field cannot be read
// belongs to every bucket, as bucketLW.keep has it.
func (up *upstream) belongs(e watch.Event, bucket int) bool {
	b, err := up.inf.opts.Field.bucketOf(e.Object, up.inf.buckets)
	return err != nil || b == bucket
}

// version returns obj's resourceVersion as a number, or 0.
func version(obj runtime.Object) uint64 {
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	return v
}

// sharedList is one list of the whole collection on its way, for every bucket that asks for
// it with the same options meanwhile.
type sharedList struct {
	done chan struct{}
	list runtime.Object
	err  error
}

// list lists the whole collection with opts, sharing the answer with the buckets that ask for
// the same list before it arrives: when the server ignores selectors, buckets acquired
// together (at a start, a crash or a hand-over) would otherwise each list everything. The
// answer is the caller's to read, not to change.
func (up *upstream) list(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	key := fmt.Sprintf("%q %q %d %q %q %q", opts.ResourceVersion, opts.ResourceVersionMatch, opts.Limit, opts.Continue, opts.LabelSelector, opts.FieldSelector)
	up.listing.Lock()
	if call := up.lists[key]; call != nil {
		up.listing.Unlock()
		select {
		case <-call.done:
			return call.list, call.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	call := &sharedList{done: make(chan struct{})}
	if up.lists == nil {
		up.lists = make(map[string]*sharedList)
	}
	up.lists[key] = call
	up.listing.Unlock()
	opts.ShardSelector = ""
	call.list, call.err = up.inf.lw.ListWithContext(ctx, opts)
	up.listing.Lock()
	delete(up.lists, key)
	up.listing.Unlock()
	close(call.done)
	return call.list, call.err
}
