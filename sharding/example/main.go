// Command example runs three replicas of a controller in one process, sharing 8 buckets of
// keys through Leases on an in-memory API server, kills one, and prints how the others take
// its buckets over. It runs for about 9 s, with 2-second Leases.
//
//	go run ./sharding/example
//
// "Killed" here means cut off from the API server with its workers stopped: to the others that
// is a crash, since it can neither renew nor release its Leases.
package main

import (
	"context"
	"fmt"
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

const buckets = 8

// replica is one process of the controller: a sharder, its queue and two workers.
type replica struct {
	name    string
	cut     atomic.Bool
	sharder *sharding.Sharder
	queue   *sharding.Queue[string]
	cancel  context.CancelFunc
	done    sync.WaitGroup
	handled atomic.Int64
}

func main() {
	klog.SetLogger(logr.Discard()) // client-go's elector logs every acquisition
	api := leasetest.NewServer()
	var keys []string
	for i := range 64 {
		keys = append(keys, fmt.Sprintf("default/object-%d", i))
	}
	start := time.Now()
	report := func(event string, replicas []*replica) {
		var parts []string
		for _, r := range replicas {
			parts = append(parts, fmt.Sprintf("%s %v", r.name, r.sharder.Held()))
		}
		fmt.Printf("%4.1fs  %-34s %s\n", time.Since(start).Seconds(), event, strings.Join(parts, "  "))
	}

	var replicas []*replica
	for _, name := range []string{"replica-a", "replica-b", "replica-c"} {
		replicas = append(replicas, run(api, name, keys))
	}
	time.Sleep(4 * time.Second)
	report("3 replicas, balanced:", replicas)

	victim := replicas[1]
	victim.cut.Store(true) // it can neither renew nor release
	victim.queue.ShutDown()
	killed := time.Now()
	survivors := []*replica{replicas[0], replicas[2]}
	report("replica-b killed:", survivors)
	for covered(survivors) < buckets {
		time.Sleep(50 * time.Millisecond)
	}
	report(fmt.Sprintf("all buckets served again (+%.1fs):", time.Since(killed).Seconds()), survivors)
	time.Sleep(2 * time.Second)
	for _, k := range keys {
		for _, r := range survivors {
			r.queue.Add(k) // an informer's resync: only the owner of each key keeps it
		}
	}
	time.Sleep(500 * time.Millisecond)
	report("after a resync:", survivors)
	for _, r := range replicas {
		fmt.Printf("      %s reconciled %d keys\n", r.name, r.handled.Load())
	}
	for _, r := range replicas {
		r.cancel()
		r.done.Wait()
	}
}

// run starts a replica named name over keys.
func run(api *leasetest.Server, name string, keys []string) *replica {
	r := &replica{name: name}
	r.sharder = sharding.New(sharding.Config{
		Client:        api.Clientset(&r.cut).CoordinationV1(),
		Namespace:     "default",
		Name:          "example",
		Identity:      name,
		Buckets:       buckets,
		LeaseDuration: 2 * time.Second,
		RenewDeadline: 1200 * time.Millisecond,
		RetryPeriod:   250 * time.Millisecond,
	})
	r.queue = sharding.Wrap(r.sharder, workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		sharding.QueueConfig[string]{Keys: func(int) []string { return keys }})
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.done.Go(func() {
		r.sharder.Run(ctx)
		r.queue.ShutDown()
	})
	for range 2 {
		r.done.Go(func() {
			for {
				key, shutdown := r.queue.Get()
				if shutdown {
					return
				}
				time.Sleep(time.Millisecond) // the reconcile
				r.handled.Add(1)
				r.queue.Done(key)
			}
		})
	}
	return r
}

// covered returns how many buckets the replicas hold between them.
func covered(replicas []*replica) int {
	var held []int
	for _, r := range replicas {
		held = append(held, r.sharder.Held()...)
	}
	slices.Sort(held)
	return len(slices.Compact(held))
}
