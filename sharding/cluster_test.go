package sharding

import (
	"context"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// cluster is replicas of a controller in one process, on one fake API server, all inside a
// synctest bubble so that leader election's waits run on the fake clock. It plays the part of
// the informers (every replica is told of every change of a key) and checks both halves of the
// guarantee: no key is in processing on two replicas at once (checked at every reconcile and
// every write), and every change of a key is processed by some replica (checked by settle).
//
// A reconcile works in steps (see replica.reconcile): before each it checks its context, by
// the clock, and writes; so "in processing" can be checked two ways. While no replica pauses,
// a reconcile is in processing from Get to its return, and two replicas' must not overlap. A
// paused replica's reconciles stay in processing, frozen, for the pause; what must not happen
// then is a write by a replica to a key that another replica has taken since (a stale write).
type cluster struct {
	t       *testing.T
	api     *leasetest.Server
	cfg     Config // without Client, Identity and Metrics
	keys    []string
	workers int

	mu sync.Mutex
	// work returns how long a reconcile runs; it must not hold mu.
	work func() time.Duration
	// step is the longest a reconcile works between two writes.
	step time.Duration
	// stopLatency bounds how long a reconcile takes to return once it sees its context end:
	// within the drain budget of the tests' Config.
	stopLatency time.Duration
	// stubborn reconciles ignore their context.
	stubborn bool
	// pausing turns the check of overlapping reconciles off (stale writes are still checked).
	pausing    bool
	rng        *rand.Rand
	generation map[string]int      // of each key, raised by touch
	processed  map[string]int      // the highest generation a finished reconcile saw
	processing map[string]*replica // the replica reconciling each key
	taken      map[string]*replica // the replica that began reconciling each key last
	live       map[*replica]bool   // replicas told of changes
	overlaps   int
	stale      int // writes by a replica to a key another replica had taken since
	acquired   []acquisition
	handovers  []Handover
	dropped    int
	logger     logr.Logger // the replicas' (Run's context's); logr.Discard() if zero
}

// acquisition is one bucket acquired by one replica, as its Keys function saw it.
type acquisition struct {
	bucket  int
	replica string
	at      time.Time
}

// replica is one member of a cluster: a Sharder, a Queue and its workers.
type replica struct {
	c       *cluster
	id      string
	link    *link
	gate    gate // closed while the replica is paused: its workers stop at their next step
	sharder *Sharder
	queue   *Queue[string]
	stop    context.CancelFunc // graceful exit
	halt    context.CancelFunc // crash
	ran     chan struct{}      // closed when the sharder's Run returns
	workers sync.WaitGroup
	dead    bool // guarded by c.mu: crashed, its reconciles gone
}

func newCluster(t *testing.T, buckets, keys int) *cluster {
	c := &cluster{
		t:           t,
		api:         leasetest.NewServer(),
		cfg:         Config{Namespace: "default", Name: "shard", Buckets: buckets},
		workers:     4,
		rng:         rand.New(rand.NewPCG(1, 2)),
		step:        200 * time.Millisecond,
		stopLatency: 1500 * time.Millisecond,
		generation:  make(map[string]int),
		processed:   make(map[string]int),
		processing:  make(map[string]*replica),
		taken:       make(map[string]*replica),
		live:        make(map[*replica]bool),
	}
	c.work = func() time.Duration { return time.Duration(50+c.intn(950)) * time.Millisecond }
	for i := range keys {
		c.keys = append(c.keys, "ns-"+strconv.Itoa(i%7)+"/obj-"+strconv.Itoa(i))
	}
	return c
}

// seed reseeds the cluster's random choices.
func (c *cluster) seed(seed uint64) *cluster {
	c.rng = rand.New(rand.NewPCG(seed, 2))
	return c
}

// between returns a random duration in [lo, hi).
func (c *cluster) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(c.intn(int(hi-lo)))
}

func (c *cluster) intn(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rng.IntN(n)
}

// join starts a replica named id.
func (c *cluster) join(id string) *replica {
	r := &replica{c: c, id: id, ran: make(chan struct{})}
	r.link = &link{inner: c.api.Clientset(nil).CoordinationV1()}
	cfg := c.cfg
	cfg.Client = r.link
	cfg.Identity = id
	cfg.Metrics = (*replicaMetrics)(r)
	r.sharder = New(cfg)
	inner := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	r.queue = Wrap(r.sharder, inner, QueueConfig[string]{Keys: func(bucket int) []string {
		c.mu.Lock()
		c.acquired = append(c.acquired, acquisition{bucket: bucket, replica: id, at: time.Now()})
		c.mu.Unlock()
		return c.keys
	}})
	ctx, stop := context.WithCancel(klog.NewContext(context.Background(), c.logger))
	halt, crash := context.WithCancel(context.Background())
	r.stop, r.halt = stop, crash
	c.mu.Lock()
	c.live[r] = true
	c.mu.Unlock()
	go func() {
		defer close(r.ran)
		r.sharder.run(ctx, halt)
	}()
	for range c.workers {
		r.workers.Go(r.work)
	}
	return r
}

// exit stops r gracefully: its sharder hands its buckets back while its workers finish.
func (c *cluster) exit(r *replica) {
	c.mu.Lock()
	delete(c.live, r)
	c.mu.Unlock()
	r.stop()
	<-r.ran
	r.queue.ShutDown()
	r.workers.Wait()
}

// crash stops r as a crashed process stops: its reconciles vanish, its Leases are neither
// renewed nor released.
func (c *cluster) crash(r *replica) {
	c.mu.Lock()
	delete(c.live, r)
	r.dead = true
	for key, p := range c.processing {
		if p == r {
			delete(c.processing, key)
		}
	}
	c.mu.Unlock()
	r.halt()
	<-r.ran
	r.queue.ShutDown()
	r.stop()
	r.workers.Wait() // the goroutines that played its workers, which do nothing more
}

// pause stops r for d as SIGSTOP and SIGCONT would: its workers at their next step, its
// Lease requests on their way out or their answers on the way in. Its clock runs on, as a
// stopped process's monotonic clock does. When the pause ends, the workers resume a
// millisecond before the Lease requests, as the scheduler may well order them.
func (c *cluster) pause(r *replica, d time.Duration) {
	r.gate.close()
	r.link.gate.close()
	time.Sleep(d)
	r.gate.open()
	time.Sleep(time.Millisecond)
	r.link.gate.open()
}

// touch changes key: every live replica is told, as its informer would tell it.
func (c *cluster) touch(key string) {
	c.mu.Lock()
	c.generation[key]++
	live := make([]*replica, 0, len(c.live))
	for r := range c.live {
		live = append(live, r)
	}
	c.mu.Unlock()
	for _, r := range live {
		r.queue.Add(key)
	}
}

// churn touches a random key every interval for d.
func (c *cluster) churn(d, interval time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		c.touch(c.keys[c.intn(len(c.keys))])
		time.Sleep(interval)
	}
}

// settle waits long enough for every bucket to be held and every change processed, then
// checks that every change was processed.
func (c *cluster) settle() {
	c.t.Helper()
	time.Sleep(2*c.cfg.LeaseDuration + 5*c.cfg.RetryPeriod)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stale > 0 {
		c.t.Errorf("%d stale writes", c.stale)
	}
	lost := 0
	for _, key := range c.keys {
		if c.processed[key] != c.generation[key] {
			lost++
			if lost <= 5 {
				c.t.Errorf("key %s: generation %d added, %d processed", key, c.generation[key], c.processed[key])
			}
		}
	}
	if lost > 0 {
		c.t.Errorf("%d of %d keys lost a change", lost, len(c.keys))
	}
}

// finish settles (see settle), then makes every replica of rs exit.
func (c *cluster) finish(rs ...*replica) {
	c.t.Helper()
	c.settle()
	for _, r := range rs {
		c.exit(r)
	}
}

// owners returns, for each bucket, the live replicas that hold it.
func (c *cluster) owners(replicas ...*replica) map[int][]string {
	o := make(map[int][]string)
	for _, r := range replicas {
		for _, b := range r.sharder.Held() {
			o[b] = append(o[b], r.id)
		}
	}
	return o
}

// checkOwned fails unless every bucket is held by exactly one of replicas.
func (c *cluster) checkOwned(replicas ...*replica) {
	c.t.Helper()
	o := c.owners(replicas...)
	for b := range c.cfg.Buckets {
		if len(o[b]) != 1 {
			c.t.Errorf("bucket %d held by %v, want one replica", b, o[b])
		}
	}
}

// checkBalanced fails unless each of replicas holds ⌊Buckets/n⌋ or ⌈Buckets/n⌉ buckets.
func (c *cluster) checkBalanced(replicas ...*replica) {
	c.t.Helper()
	low := c.cfg.Buckets / len(replicas)
	high := (c.cfg.Buckets + len(replicas) - 1) / len(replicas)
	for _, r := range replicas {
		if n := len(r.sharder.Held()); n < low || n > high {
			c.t.Errorf("replica %s holds %d buckets %v, want %d to %d", r.id, n, r.sharder.Held(), low, high)
		}
	}
}

// acquisitionsSince returns the acquisitions from since on, by bucket.
func (c *cluster) acquisitionsSince(since time.Time) map[int]acquisition {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := make(map[int]acquisition)
	for _, acq := range c.acquired {
		if !acq.at.Before(since) {
			if _, ok := a[acq.bucket]; !ok {
				a[acq.bucket] = acq
			}
		}
	}
	return a
}

// work is one worker of r.
func (r *replica) work() {
	for {
		key, shutdown := r.queue.Get()
		if shutdown {
			return
		}
		r.reconcile(key)
		r.queue.Done(key)
	}
}

// reconcile processes key, recording its start, writes and end with the cluster. It works for
// c.work() in steps of up to c.step; before each step it passes the replica's gate (a pause
// stops it there), checks its context by the clock, and writes at once, as a reconcile that
// honours its context checks before each write. Once it sees its context end, it takes up to
// c.stopLatency to return, writing nothing more. A stubborn reconcile ignores its context.
func (r *replica) reconcile(key string) {
	c := r.c
	ctx := r.queue.Context(key)
	c.mu.Lock()
	if r.dead {
		c.mu.Unlock()
		return
	}
	if other, ok := c.processing[key]; ok && !c.pausing {
		c.overlaps++
		c.t.Errorf("key %s handed to %s while %s processes it", key, r.id, other.id)
	}
	c.processing[key] = r
	c.taken[key] = r
	generation := c.generation[key]
	work, step, stop, stubborn := c.work, c.step, c.stopLatency, c.stubborn
	c.mu.Unlock()

	finished := true
	for left := work(); left > 0 && finished; {
		r.gate.pass()
		if !stubborn && !honoured(ctx) {
			finished = false
			break
		}
		r.write(key)
		d := min(left, step)
		timer := time.NewTimer(d)
		done := ctx.Done()
		if stubborn {
			done = nil
		}
		select {
		case <-timer.C:
			left -= d
		case <-done:
			timer.Stop()
			finished = false
		}
	}
	if !finished {
		// A reconcile notices its context's end at its next call, and takes a while to
		// return, within the drain budget of the tests' Config.
		time.Sleep(time.Duration(c.intn(int(stop))))
	}

	c.mu.Lock()
	if r.dead {
		c.mu.Unlock()
		return
	}
	if c.processing[key] == r {
		delete(c.processing, key)
	}
	if finished && generation > c.processed[key] {
		c.processed[key] = generation
	}
	c.mu.Unlock()
	if !finished {
		r.queue.AddRateLimited(key)
	}
}

// honoured reports whether a reconcile may still act under ctx, as the package documentation
// says to check right before a write: its context has not ended and, by the clock (the timer
// that ends ctx runs late after a pause; the clock does not), the bucket is still held.
func honoured(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	deadline, ok := Fence(ctx)
	return ok && time.Now().Before(deadline)
}

// write records a write of key by r, and fails the test if another replica has taken the key
// since r began reconciling it.
func (r *replica) write(key string) {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.dead {
		return
	}
	if other := c.taken[key]; other != r {
		c.stale++
		c.t.Errorf("key %s written by %s after %s took it", key, r.id, other.id)
	}
}

// replicaMetrics records a replica's measurements with its cluster.
type replicaMetrics replica

func (m *replicaMetrics) BucketsHeld(int) {}

func (m *replicaMetrics) KeyDropped() {
	m.c.mu.Lock()
	m.c.dropped++
	m.c.mu.Unlock()
}

func (m *replicaMetrics) HandedOver(h Handover) {
	m.c.mu.Lock()
	m.c.handovers = append(m.c.handovers, h)
	m.c.mu.Unlock()
}

// sorted returns the keys of m in increasing order.
func sorted[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
