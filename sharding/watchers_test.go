package sharding

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// journal is a BucketWatcher that writes down what it is told, in order, and whose Prepare
// waits for hold (when set) or fails with fail (when set).
type journal struct {
	mu      sync.Mutex
	entries []string
	hold    chan struct{} // Prepare waits until it is closed, or its ctx ends
	fail    error
}

func (j *journal) note(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, fmt.Sprintf(format, args...))
}

func (j *journal) read() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.entries)
}

func (j *journal) Prepare(ctx context.Context, b int) error {
	j.note("prepare %d", b)
	if j.fail != nil {
		return j.fail
	}
	if j.hold != nil {
		select {
		case <-j.hold:
		case <-ctx.Done():
			j.note("prepare %d cancelled", b)
			return context.Cause(ctx)
		}
	}
	j.note("prepared %d", b)
	return nil
}

func (j *journal) Release(b int) { j.note("release %d", b) }

// watched is one replica with one bucket, on 2 s Leases, a watcher journal and a queue whose
// Keys notes its calls in the same journal.
type watched struct {
	sharder *Sharder
	queue   *Queue[string]
	journal *journal
	stop    context.CancelFunc
	ran     chan struct{}
}

func newWatched(leases coordinationv1client.LeasesGetter, id string, j *journal, metrics Metrics) *watched {
	w := &watched{journal: j, ran: make(chan struct{})}
	w.sharder = New(Config{Client: leases, Namespace: "ns", Name: "watched", Identity: id, Buckets: 1,
		LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond, Metrics: metrics})
	if held := w.sharder.Watch(j); len(held) > 0 {
		panic("held before Run")
	}
	w.queue = Wrap(w.sharder, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		QueueConfig[string]{Keys: func(b int) []string { j.note("keys %d", b); return []string{"k"} }})
	ctx, stop := context.WithCancel(context.Background())
	w.stop = stop
	go func() {
		defer close(w.ran)
		w.sharder.Run(ctx)
	}()
	time.Sleep(w.sharder.cfg.RetryPeriod) // Run announces itself, and campaigns from now on
	return w
}

func (w *watched) close() {
	w.stop()
	<-w.ran
	w.queue.ShutDown()
}

// TestPrepareBeforeKeys checks the order a BucketWatcher relies on: a bucket won is prepared
// before the queues accept or list its keys, however long that takes (the elector renews the
// Lease meanwhile, so no other replica takes it); and it is released only once its last key
// in processing is done.
func TestPrepareBeforeKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := leasetest.NewServer()
		j := &journal{hold: make(chan struct{})}
		a := newWatched(api.Clientset(nil).CoordinationV1(), "a", j, nil)
		defer a.close()
		synctest.Wait() // a wins the Lease and begins to prepare
		other := newWatched(api.Clientset(nil).CoordinationV1(), "b", &journal{}, nil)
		time.Sleep(5 * time.Second) // 2.5 LeaseDurations
		synctest.Wait()
		if got := j.read(); !slices.Equal(got, []string{"prepare 0"}) {
			t.Fatalf("while Prepare waits: journal %q; want only the preparation", got)
		}
		if a.sharder.Holds(0) || other.sharder.Holds(0) {
			t.Fatalf("Holds: a %v, b %v while a prepares; want neither", a.sharder.Holds(0), other.sharder.Holds(0))
		}
		a.queue.Add("k")
		if a.queue.Len() != 0 {
			t.Fatal("the queue accepted a key of a bucket being prepared")
		}
		other.close()

		close(j.hold)
		key, _ := a.queue.Get()
		if got := j.read(); !slices.Equal(got, []string{"prepare 0", "prepared 0", "keys 0"}) {
			t.Fatalf("journal %q; want the keys listed after the preparation", got)
		}
		left := make(chan struct{})
		go func() {
			defer close(left)
			a.stop()
			<-a.ran
		}()
		time.Sleep(time.Second)
		synctest.Wait()
		if got := j.read(); slices.Contains(got, "release 0") {
			t.Fatalf("journal %q: released while a key was in processing", got)
		}
		a.queue.Done(key)
		<-left
		if got := j.read(); got[len(got)-1] != "release 0" {
			t.Fatalf("journal %q; want the release once drained", got)
		}
	})
}

// TestPrepareFailureGivesBackBucket checks that a bucket whose preparation fails is given
// back at once (its Lease released, so that another replica takes it within a second or so,
// not LeaseDuration), released by the watchers, and reported; its keys are never accepted.
func TestPrepareFailureGivesBackBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := leasetest.NewServer()
		failing := &journal{fail: errors.New("no watch")}
		f := &failures{ops: make(map[string][]error)}
		a := newWatched(api.Clientset(nil).CoordinationV1(), "a", failing, f)
		defer a.close()
		synctest.Wait()
		if got := failing.read(); !slices.Equal(got, []string{"prepare 0", "release 0"}) {
			t.Fatalf("journal %q; want the failed preparation released", got)
		}
		joined := time.Now()
		b := newWatched(api.Clientset(nil).CoordinationV1(), "b", &journal{}, nil)
		defer b.close()
		key, _ := b.queue.Get()
		if took := time.Since(joined); key != "k" || took > 1500*time.Millisecond {
			t.Fatalf("b got %q %v after joining; want k within 1.5 s of a released Lease", key, took)
		}
		b.queue.Done(key)
		if a.sharder.Holds(0) {
			t.Fatal("a holds the bucket it failed to prepare")
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if errs := f.ops["prepare"]; len(errs) != 1 || errs[0].Error() != "no watch" {
			t.Fatalf("FailureMetrics got prepare failures %v; want the watcher's error once", errs)
		}
	})
}

// TestPrepareEndsWhenLeaving checks that a preparation in progress ends when Run's context is
// done, and that the replica then releases the Lease and returns.
func TestPrepareEndsWhenLeaving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := leasetest.NewServer()
		j := &journal{hold: make(chan struct{})}
		a := newWatched(api.Clientset(nil).CoordinationV1(), "a", j, nil)
		synctest.Wait()
		a.close()
		if got := j.read(); !slices.Equal(got, []string{"prepare 0", "prepare 0 cancelled", "release 0"}) {
			t.Fatalf("journal %q; want the preparation cancelled, then released", got)
		}
		lease, err := api.Clientset(nil).CoordinationV1().Leases("ns").Get(context.Background(), "watched-0", metav1.GetOptions{})
		if err != nil || holder(lease) != "" {
			t.Fatalf("Lease after leaving: holder %q, %v; want released", holder(lease), err)
		}
	})
}

// TestWatchAfterRun checks that a watcher registered while buckets are held learns of them
// from Watch, and of their release later.
func TestWatchAfterRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		key, _ := o.queue.Get()
		o.queue.Done(key)
		late := &journal{}
		if held := o.sharder.Watch(late); !slices.Equal(held, []int{0}) {
			t.Fatalf("Watch returned %v; want the held bucket [0]", held)
		}
		o.close()
		if got := late.read(); !slices.Equal(got, []string{"release 0"}) {
			t.Fatalf("late watcher's journal %q; want the release", got)
		}
	})
}

func TestWatchNil(t *testing.T) {
	o := New(Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(), Namespace: "n", Name: "x", Identity: "a", Buckets: 1})
	defer func() {
		if r := recover(); r == nil || r != "sharding: Sharder.Watch: nil BucketWatcher" {
			t.Fatalf("Watch(nil) recovered %v", r)
		}
	}()
	o.Watch(nil)
}

// TestAskedWhilePreparing checks that a request for a bucket being prepared ends the
// preparation and gives the bucket back, as a request for a held bucket would, without
// reporting a failure.
func TestAskedWhilePreparing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		api := leasetest.NewServer()
		j := &journal{hold: make(chan struct{})}
		f := &failures{ops: make(map[string][]error)}
		a := newWatched(api.Clientset(nil).CoordinationV1(), "a", j, f)
		defer a.close()
		synctest.Wait()
		a.sharder.requestHandover(0)
		synctest.Wait()
		if got := j.read(); !slices.Equal(got, []string{"prepare 0", "prepare 0 cancelled", "release 0"}) {
			t.Fatalf("journal %q; want the preparation cancelled, then released", got)
		}
		lease, err := api.Clientset(nil).CoordinationV1().Leases("ns").Get(context.Background(), "watched-0", metav1.GetOptions{})
		if err != nil || holder(lease) != "" {
			t.Fatalf("Lease after the request: holder %q, %v; want released", holder(lease), err)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.ops) != 0 {
			t.Errorf("failures reported: %v; want none", f.ops)
		}
	})
}
