package sharding

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// solo is one replica holding one bucket, on 2 s Leases renewed every 250 ms, with a queue
// whose Keys lists "k", and a link to cut.
type solo struct {
	link    *link
	sharder *Sharder
	queue   *Queue[string]
	stop    context.CancelFunc
	ran     chan struct{}
}

func newSolo(t *testing.T) *solo {
	t.Helper()
	o := &solo{link: &link{inner: leasetest.NewServer().Clientset(nil).CoordinationV1()}, ran: make(chan struct{})}
	o.sharder = New(Config{Client: o.link, Namespace: "ns", Name: "solo", Identity: "a", Buckets: 1,
		LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond})
	o.queue = Wrap(o.sharder, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		QueueConfig[string]{Keys: func(int) []string { return []string{"k"} }})
	ctx, stop := context.WithCancel(context.Background())
	o.stop = stop
	// Run waits a RetryPeriod before its campaigns (it announces itself first): start it so
	// that they begin on the next whole second of the bubble's clock, when newSolo returns.
	retry := o.sharder.cfg.RetryPeriod
	time.Sleep(time.Second - retry)
	go func() {
		defer close(o.ran)
		o.sharder.Run(ctx)
	}()
	time.Sleep(retry)
	return o
}

// lateFrom makes the server's answers to o take late from start+10.1 s on, and returns then.
// With 900 ms, the renewal begun at +10.25 s, answered at +11.15 s, counts from +10 s (the
// same second of renewTime), so the keys' end passes at +11.45 s (10 + RenewDeadline +
// RetryPeriod), before the next renewal, begun at +11.4 s, is answered at +12.3 s.
func (o *solo) lateFrom(start time.Time, late time.Duration) {
	time.Sleep(time.Until(start.Add(10100 * time.Millisecond)))
	o.link.setLate(func() time.Duration { return late })
}

func (o *solo) close() {
	o.stop()
	<-o.ran
	o.queue.ShutDown()
}

// TestHoldWindowCountsFromFirstWriteOfRecord checks hole 1's fix directly: renewals within
// one second of renewTime leave the record the other electors compare unchanged, so the hold
// window keeps counting from the first of them; the first renewal in a new second moves it.
func TestHoldWindowCountsFromFirstWriteOfRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		start := time.Now() // on a whole second: the campaign begins
		defer o.close()
		synctest.Wait()
		window := o.sharder.times.HoldWindow()
		for _, step := range []struct {
			at        time.Duration // after start
			countFrom time.Duration // after start
		}{
			{0, 0}, // acquired, and renewed at once within the same second
			{250 * time.Millisecond, 0},
			{750 * time.Millisecond, 0},
			{1000 * time.Millisecond, 1000 * time.Millisecond}, // a new second
			{1750 * time.Millisecond, 1000 * time.Millisecond},
			{2000 * time.Millisecond, 2000 * time.Millisecond},
		} {
			time.Sleep(time.Until(start.Add(step.at)))
			synctest.Wait()
			got := o.sharder.holding(0).current().Until
			if want := start.Add(step.countFrom + window); !got.Equal(want) {
				t.Errorf("at +%v: hold window ends at +%v, want +%v", step.at, got.Sub(start), want.Sub(start))
			}
		}
	})
}

// TestHeldOnlyInProcessing checks Held and Fence for items and contexts that are not in
// processing.
func TestHeldOnlyInProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		defer o.close()
		key, _ := o.queue.Get()
		ctx := o.queue.Context(key)
		if _, ok := o.queue.Held(key); !ok {
			t.Error("Held false for an item in processing")
		}
		if _, ok := o.queue.Held("other"); ok {
			t.Error("Held true for an item never handed out")
		}
		o.queue.Done(key)
		if _, ok := o.queue.Held(key); ok {
			t.Error("Held true for an item done")
		}
		if _, ok := Fence(ctx); ok {
			t.Error("Fence true for the context of an item done")
		}
		if _, ok := Fence(context.Background()); ok {
			t.Error("Fence true for a context not from a Queue")
		}
		if o.queue.Context(key).Err() == nil {
			t.Error("Context of an item done is not cancelled")
		}
	})
}

// TestSetAsideKeysDroppedOnLoss checks the other end of hole 3's fix: keys set aside while the
// window had lapsed are dropped, and counted, if the bucket is then lost.
func TestSetAsideKeysDroppedOnLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		start := time.Now()
		defer o.close()
		key, _ := o.queue.Get()
		o.queue.Done(key)
		// The renewal begun at +10.25 s, answered at +11.35 s, counts from +10 s: the keys' end
		// passes at +11.45 s, and the next renewal would be begun at +11.6 s.
		o.lateFrom(start, 1100*time.Millisecond)
		time.Sleep(time.Until(start.Add(11500 * time.Millisecond)))
		if !o.sharder.holding(0).lapsed(time.Now()) {
			t.Fatal("the tenure has not lapsed")
		}
		before := o.queue.Dropped()
		o.queue.Add("j")
		got := make(chan string)
		go func() {
			item, _ := o.queue.Get() // the next item handed out
			got <- item
		}()
		synctest.Wait()
		if n := o.queue.Len(); n != 0 {
			t.Errorf("Len = %d while the window has lapsed, want the item set aside", n)
		}
		o.link.cut.Store(true)
		time.Sleep(2 * time.Second)
		if o.sharder.Holds(0) {
			t.Fatal("bucket still held after its renewals failed for longer than RenewDeadline")
		}
		if d := o.queue.Dropped() - before; d != 1 {
			t.Errorf("%d items dropped at the loss, want the one set aside", d)
		}
		o.link.setLate(nil)
		o.link.cut.Store(false)
		if item := <-got; item != "k" {
			t.Errorf("Get returned %q after the bucket came back, want the key Keys lists", item)
		}
		o.queue.Done("k")
	})
}

// TestGetWithPriority checks the priority path through the wrapper, on the priority queue of
// package workqueue: AddWith passes held items to AddWithOpts, GetWithPriority returns them
// by priority.
func TestGetWithPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := leasetest.NewServer()
		s := New(Config{Client: server.Clientset(nil).CoordinationV1(), Namespace: "ns", Name: "p", Identity: "a", Buckets: 2})
		pq := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{})
		q := Wrap(s, pq, QueueConfig[string]{})
		ctx, stop := context.WithCancel(context.Background())
		ran := make(chan struct{})
		go func() {
			defer close(ran)
			s.Run(ctx)
		}()
		time.Sleep(DefaultRetryPeriod + time.Second) // Run campaigns a RetryPeriod after it starts
		if len(s.Held()) != 2 {
			t.Fatalf("holds %v, want both buckets", s.Held())
		}
		high, low := 5, 1
		q.AddWith(func(items ...string) { pq.AddWithOpts(workqueue.AddOpts{Priority: &low}, items...) }, "x")
		q.AddWith(func(items ...string) { pq.AddWithOpts(workqueue.AddOpts{Priority: &high}, items...) }, "y")
		for _, want := range []struct {
			item     string
			priority int
		}{{"y", high}, {"x", low}} {
			item, priority, _ := q.GetWithPriority()
			if item != want.item || priority != want.priority {
				t.Errorf("GetWithPriority = %s, %d; want %s, %d", item, priority, want.item, want.priority)
			}
			if _, ok := q.Held(item); !ok {
				t.Errorf("%s handed out by GetWithPriority is not held", item)
			}
			q.Done(item)
		}
		stop()
		<-ran
		calls := 0
		q.AddWith(func(...string) { calls++ }, "x", "y")
		if calls != 0 || q.Dropped() != 2 {
			t.Errorf("after the buckets were handed back, AddWith called add %d times and dropped %d items; want 0 and 2", calls, q.Dropped())
		}
		q.ShutDown()
	})
}
