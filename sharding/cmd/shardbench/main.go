// Command shardbench measures package sharding with replicas in one process, on an in-memory
// API server, with 2-second Leases:
//
//   - throughput: 4000 keys through 1, 2 and 4 replicas, each with 8 workers, once with
//     reconciles that wait 2 ms (I/O-bound work, which more replicas overlap) and once with
//     reconciles that burn 200 µs of CPU (CPU-bound work, which no more than the machine's
//     cores can run at once);
//   - crash to served: from a replica of 4 being cut off, its workers stopped, to every bucket
//     being held by the others again.
//
// Rounds interleave the replica counts; the table gives the median and the worst round.
//
//	go run ./sharding/cmd/shardbench [-rounds 3]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

const (
	buckets = 16
	workers = 8
	nKeys   = 4000
)

var config = sharding.Config{
	Namespace:     "bench",
	Buckets:       buckets,
	LeaseDuration: 2 * time.Second,
	RenewDeadline: 1200 * time.Millisecond,
	RetryPeriod:   250 * time.Millisecond,
}

// reconcile is the work of one key.
type reconcile func()

func wait() { time.Sleep(2 * time.Millisecond) }
func burn() { spin(200 * time.Microsecond) }
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

func main() {
	rounds := flag.Int("rounds", 3, "rounds of every measurement")
	flag.Parse()
	klog.SetLogger(logr.Discard())
	fmt.Printf("cpu: %s, GOMAXPROCS %d, %s\n", cpuModel(), runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Printf("%d buckets, %d keys, %d workers per replica; Leases: %v duration, %v renew deadline, %v retry period\n\n",
		buckets, nKeys, workers, config.LeaseDuration, config.RenewDeadline, config.RetryPeriod)

	counts := []int{1, 2, 4}
	kinds := []struct {
		name string
		work reconcile
	}{{"wait 2ms", wait}, {"cpu 200µs", burn}}
	throughput := make(map[string][]float64)
	var takeover []time.Duration
	for round := range *rounds {
		for _, n := range counts {
			c := start(n, round)
			for _, kind := range kinds {
				key := fmt.Sprintf("%s/%d", kind.name, n)
				throughput[key] = append(throughput[key], c.measure(kind.work))
			}
			if n == 4 {
				takeover = append(takeover, c.crash())
			}
			c.stop()
		}
	}

	fmt.Printf("%-10s %-9s %14s %14s\n", "reconcile", "replicas", "median keys/s", "worst keys/s")
	for _, kind := range kinds {
		for _, n := range counts {
			v := throughput[fmt.Sprintf("%s/%d", kind.name, n)]
			slices.Sort(v)
			fmt.Printf("%-10s %-9d %14.0f %14.0f\n", kind.name, n, v[len(v)/2], v[0])
		}
	}
	slices.Sort(takeover)
	fmt.Printf("\ncrash to served (4 replicas, 2 s Leases): median %v, worst %v\n",
		takeover[len(takeover)/2].Round(time.Millisecond), takeover[len(takeover)-1].Round(time.Millisecond))
}

// cluster is n replicas sharing the buckets.
type cluster struct {
	replicas []*replica
	work     atomic.Pointer[reconcile]
	pending  sync.WaitGroup // keys not yet reconciled
	mu       sync.Mutex
	seen     map[string]bool
}

type replica struct {
	cut     atomic.Bool
	sharder *sharding.Sharder
	queue   *sharding.Queue[string]
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

// start starts n replicas and waits until the buckets are spread evenly.
func start(n, round int) *cluster {
	api := leasetest.NewServer()
	c := &cluster{}
	for i := range n {
		cfg := config
		cfg.Name = fmt.Sprintf("round%d", round)
		cfg.Identity = fmt.Sprintf("replica-%d", i)
		r := &replica{}
		cfg.Client = api.Clientset(&r.cut).CoordinationV1()
		r.sharder = sharding.New(cfg)
		r.queue = sharding.Wrap(r.sharder, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()), sharding.QueueConfig[string]{})
		ctx, cancel := context.WithCancel(context.Background())
		r.cancel = cancel
		r.done.Go(func() {
			r.sharder.Run(ctx)
			r.queue.ShutDown()
		})
		for range workers {
			r.done.Go(func() { c.work1(r) })
		}
		c.replicas = append(c.replicas, r)
	}
	for deadline := time.Now().Add(30 * time.Second); !c.balanced(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "shardbench: %d replicas not balanced after 30 s; measuring anyway\n", n)
			break
		}
	}
	return c
}

// balanced reports whether every bucket is held and each replica holds its share.
func (c *cluster) balanced() bool {
	total := 0
	for _, r := range c.replicas {
		held := len(r.sharder.Held())
		if held < buckets/len(c.replicas) {
			return false
		}
		total += held
	}
	return total == buckets
}

// work1 is one worker of r.
func (c *cluster) work1(r *replica) {
	for {
		key, shutdown := r.queue.Get()
		if shutdown {
			return
		}
		(*c.work.Load())()
		c.mu.Lock()
		first := !c.seen[key]
		c.seen[key] = true
		c.mu.Unlock()
		if first {
			c.pending.Done()
		}
		r.queue.Done(key)
	}
}

// measure offers nKeys keys to every replica, as informers would, and returns how many keys
// per second the replicas reconciled between them.
func (c *cluster) measure(work reconcile) float64 {
	c.work.Store(&work)
	c.seen = make(map[string]bool)
	round := time.Now().UnixNano()
	c.pending.Add(nKeys)
	began := time.Now()
	for i := range nKeys {
		key := fmt.Sprintf("ns/%d-%d", round, i)
		for _, r := range c.replicas {
			r.queue.Add(key)
		}
	}
	c.pending.Wait()
	return nKeys / time.Since(began).Seconds()
}

// crash cuts the last replica off, stops its workers, and returns the time until the others
// hold every bucket.
func (c *cluster) crash() time.Duration {
	victim := c.replicas[len(c.replicas)-1]
	survivors := c.replicas[:len(c.replicas)-1]
	began := time.Now()
	victim.cut.Store(true)
	victim.queue.ShutDown()
	for {
		total := 0
		for _, r := range survivors {
			total += len(r.sharder.Held())
		}
		if total == buckets {
			return time.Since(began)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *cluster) stop() {
	for _, r := range c.replicas {
		r.cancel()
		r.done.Wait() // the sharder hands its buckets back; then the queue shuts down
	}
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if name, ok := strings.CutPrefix(s.Text(), "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return runtime.GOARCH
}
