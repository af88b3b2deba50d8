package sharding

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// handovers records a replica's Handovers.
type handovers struct {
	noMetrics
	got chan Handover
}

func (h handovers) HandedOver(ho Handover) { h.got <- ho }

// TestFrozenHolderLosesItsTenure is the regression test of issue 42: a replica's tenure ran
// on across another replica's. Replica a holds the bucket and has key k in processing when it
// freezes right after sending a renewal, which the server applies: the answer waits, as in a
// stopped process's socket, past LeaseDuration. Replica b takes the bucket over, and hands it
// back when asked (the request a's balancer writes once it runs again). a thaws: client-go's
// elector reads the late answer as a renewal, keeps leading, and within RenewDeadline its
// renew loop acquires the released Lease, reporting nothing. k was handed out before the
// freeze, while b reconciled it since: a must not act on it any more. Before the fix, Held(k)
// said yes, with a window counted from the re-acquisition.
func TestFrozenHolderLosesItsTenure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := leasetest.NewServer()
		cfg := Config{Namespace: "ns", Name: "f", Buckets: 1,
			LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond}
		leases := api.Clientset(nil).CoordinationV1().Leases("ns")
		holder := func() string {
			lease, err := leases.Get(context.Background(), "f-0", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return holder(lease)
		}
		run := func(id string, client *link, metrics Metrics) (*Sharder, *Queue[string], func()) {
			c := cfg
			c.Client, c.Identity, c.Metrics = client, id, metrics
			s := New(c)
			q := Wrap(s, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
				QueueConfig[string]{Keys: func(int) []string { return []string{"k"} }})
			ctx, stop := context.WithCancel(context.Background())
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				s.Run(ctx)
			}()
			return s, q, func() {
				stop()
				<-ran
				q.ShutDown()
			}
		}

		aLink := &link{inner: api.Clientset(nil).CoordinationV1()}
		aReports := handovers{got: make(chan Handover, 16)}
		a, aQueue, stopA := run("a", aLink, aReports)
		defer stopA()
		key, _ := aQueue.Get()
		ctx := aQueue.Context(key)
		if _, ok := aQueue.Held(key); !ok || !a.Holds(0) {
			t.Fatal("a does not hold the bucket with k in processing")
		}

		// a freezes right after sending its next renewal: the server applies it, the answer
		// waits at the gate, and so do a's other requests.
		time.Sleep(time.Second)
		frozen := make(chan time.Time, 1)
		aLink.setReject(func(*coordinationv1.Lease) error {
			aLink.setReject(nil)
			aLink.gate.close()
			frozen <- time.Now()
			return nil
		})
		froze := <-frozen

		// b takes the bucket over once LeaseDuration has passed on its clock.
		bLink := &link{inner: api.Clientset(nil).CoordinationV1()}
		_, _, stopB := run("b", bLink, nil)
		defer stopB()
		time.Sleep(time.Until(froze.Add(cfg.LeaseDuration + time.Second)))
		if h := holder(); h != "b" {
			t.Fatalf("the Lease names %q %v after a froze, want b", h, time.Since(froze))
		}
		// a's balancer would ask b for the bucket once it runs: the request, written now.
		lease, err := leases.Get(context.Background(), "f-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lease.Annotations = map[string]string{annotationRequest: "a"}
		if _, err := leases.Update(context.Background(), lease, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if h := holder(); h != "" {
			t.Fatalf("b did not hand the bucket back: the Lease names %q", h)
		}

		// a thaws and reads the late answer; its renew loop takes the free Lease within
		// RenewDeadline.
		thawed := time.Now()
		aLink.gate.open()
		time.Sleep(cfg.RenewDeadline + cfg.RetryPeriod)
		if h := holder(); h != "a" {
			t.Fatalf("the Lease names %q %v after a thawed; the test shows nothing unless a takes it back in its renew loop", h, time.Since(thawed))
		}
		if deadline, ok := aQueue.Held(key); ok {
			t.Errorf("Held(k) = %v ahead, true, for a key handed out before b held the bucket", time.Until(deadline))
		}
		if _, ok := Fence(ctx); ok {
			t.Error("Fence true for the context of a key handed out before b held the bucket")
		}
		if ctx.Err() == nil {
			t.Error("the context of a key handed out before b held the bucket has not ended")
		}
		reported := false
		for len(aReports.got) > 0 {
			if h := <-aReports.got; h.Bucket == 0 && h.Cause.String() == "interrupted" {
				reported = true
			}
		}
		if !reported {
			t.Error("a reported no interruption of its tenure")
		}
		// The key is not dropped: done, it is handed out again, now held.
		aQueue.Done(key)
		again, _ := aQueue.Get()
		if _, ok := aQueue.Held(again); again != "k" || !ok {
			t.Errorf("after Done, Get handed out %q, held %v; want k, held under the new tenure", again, ok)
		}
		aQueue.Done(again)
	})
}
