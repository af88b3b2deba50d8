// Command replica is one replica of the sharded controller that the end-to-end tests run as
// separate processes, over the ConfigMaps of one namespace, in one of two wirings (-kind):
//
//   - queue: a sharding.Sharder, sharding.Wrap around a rate-limiting queue of this project,
//     workers and an informer, wired by hand as the sharding README shows (queue.go);
//   - controller-runtime: a controller-runtime manager without leader election, the sharder
//     as its runnable and a ConfigMap controller on this project's controller-runtime queue,
//     sharded by package crshard (crkind.go): the sharded controller-runtime controller of
//     issue 33, recording what the checks need (cmd/crexample is the same wiring without
//     the records, to read and copy).
//
// Both reconcile alike (reconcile.go): every reconcile's start, writes and end, every change
// of the buckets held and every hand-over go to its record (package internal/record).
//
//	replica -server https://127.0.0.1:PORT -ca FILE -token TOKEN -namespace NS -identity NAME \
//	        -record FILE [-kind queue -buckets 12 -lease 2s -renew 1.2s -retry 250ms -workers 4 -work 200ms ...]
//
// SIGTERM or SIGINT makes it leave gracefully: its sharder hands every bucket back, and it
// exits 0. SIGUSR1 stalls every reconcile right before its next check of sharding.Fence, until
// SIGUSR2. SIGHUP has it record what it measured of its watch (record.Stats).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// Kinds of replica, the -kind flag.
const (
	// kindQueue wires sharding.Wrap around a rate-limiting queue of this project by hand, as
	// the sharding README shows.
	kindQueue = "queue"
	// kindControllerRuntime is a sharded controller-runtime controller, through package
	// crshard.
	kindControllerRuntime = "controller-runtime"
)

// The sharder renews each bucket's Lease every RetryPeriod: 48 writes a second with 12 buckets
// and 250 ms, far above client-go's default of 5 queries a second, whose throttling would
// delay renewals on its own. The tests slow requests down on purpose, with a proxy.
const (
	clientQPS   = 500
	clientBurst = 1000
)

// options are the flags.
type options struct {
	kind, server, ca, token string
	namespace, name, id     string
	record                  string
	buckets, workers        int
	lease, renew, retry     time.Duration
	drift                   float64
	work, stopLatency       time.Duration
	writes                  int
	unsharded               bool
	watch                   string
}

func main() {
	var o options
	flag.StringVar(&o.kind, "kind", kindQueue, "the replica's wiring: "+kindQueue+" or "+kindControllerRuntime)
	flag.StringVar(&o.server, "server", "", "API server URL (required)")
	flag.StringVar(&o.ca, "ca", "", "file of the CA that signed the server's certificate (required)")
	flag.StringVar(&o.token, "token", "", "bearer token (required)")
	flag.StringVar(&o.namespace, "namespace", "", "namespace of the ConfigMaps and the Leases (required)")
	flag.StringVar(&o.name, "name", "e2e", "prefix of the Leases, Config.Name")
	flag.StringVar(&o.id, "identity", "", "this replica's identity, Config.Identity (required)")
	flag.StringVar(&o.record, "record", "", "file the events are appended to (required)")
	flag.IntVar(&o.buckets, "buckets", 12, "Config.Buckets")
	flag.IntVar(&o.workers, "workers", 4, "workers")
	flag.DurationVar(&o.lease, "lease", 2*time.Second, "Config.LeaseDuration")
	flag.DurationVar(&o.renew, "renew", 1200*time.Millisecond, "Config.RenewDeadline")
	flag.DurationVar(&o.retry, "retry", 250*time.Millisecond, "Config.RetryPeriod")
	flag.Float64Var(&o.drift, "drift", 0, "Config.MaxClockDrift (0: the default)")
	flag.DurationVar(&o.work, "work", 200*time.Millisecond, "how long a reconcile works")
	flag.DurationVar(&o.stopLatency, "stop-latency", 100*time.Millisecond, "how long a reconcile takes to return once its context is done")
	flag.IntVar(&o.writes, "writes", 4, "how many writes a reconcile makes, at even intervals of its work")
	flag.BoolVar(&o.unsharded, "unsharded", false, "process every key, without a sharder: a control that the tests must catch")
	flag.StringVar(&o.watch, "watch", watchWhole, "the informer: empty to watch every ConfigMap; "+watchUID+" or "+watchNamespace+" to watch only the held buckets' (package shardcache), by UID or by namespace")
	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	flag.Func("v", "client-go's log verbosity", func(v string) error { return klogFlags.Set("v", v) })
	flag.Parse()

	if err := o.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stalls := make(chan os.Signal, 2)
	signal.Notify(stalls, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for sig := range stalls {
			stalled.set(sig == syscall.SIGUSR1)
		}
	}()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

func (o options) validate() error {
	switch {
	case o.server == "" || o.ca == "" || o.token == "" || o.namespace == "" || o.id == "" || o.record == "":
		return errors.New("-server, -ca, -token, -namespace, -identity and -record are required")
	case o.kind != kindQueue && o.kind != kindControllerRuntime:
		return fmt.Errorf("-kind %q: want %s or %s", o.kind, kindQueue, kindControllerRuntime)
	case o.workers <= 0:
		return fmt.Errorf("-workers %d: want > 0", o.workers)
	case o.writes <= 0:
		return fmt.Errorf("-writes %d: want > 0", o.writes)
	case o.watch != watchWhole && o.watch != watchUID && o.watch != watchNamespace:
		return fmt.Errorf("-watch %q: want empty, %s or %s", o.watch, watchUID, watchNamespace)
	case o.watch != watchWhole && o.unsharded:
		return errors.New("-watch needs a sharder: not with -unsharded")
	}
	return nil
}

// config returns the sharder's configuration, less its client and metrics.
func (o options) config() sharding.Config {
	return sharding.Config{
		Namespace:     o.namespace,
		Name:          o.name,
		Identity:      o.id,
		Buckets:       o.buckets,
		LeaseDuration: o.lease,
		RenewDeadline: o.renew,
		RetryPeriod:   o.retry,
		MaxClockDrift: o.drift,
	}
}

// restConfig returns the client configuration of the replica's API server.
func (o options) restConfig() *rest.Config {
	return &rest.Config{
		Host:            o.server,
		BearerToken:     o.token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: o.ca},
		QPS:             clientQPS,
		Burst:           clientBurst,
		UserAgent:       "e2e-replica/" + o.id,
	}
}

// reconciler returns the reconciles' work, as the flags configure it.
func (o options) reconciler(rec *record.Writer) *reconciler {
	return &reconciler{rec: rec, work: o.work, stopLatency: o.stopLatency, writes: o.writes, unsharded: o.unsharded}
}

// run runs the replica until ctx is done, then leaves gracefully.
func run(ctx context.Context, o options) error {
	rec, err := record.Create(o.record, o.id)
	if err != nil {
		return err
	}
	switch o.kind {
	case kindControllerRuntime:
		err = runControllerRuntime(ctx, o, rec)
	default:
		var r *queueReplica
		if r, err = newQueueReplica(o, rec); err == nil {
			r.run(ctx)
		}
	}
	if err != nil {
		rec.Close()
		return err
	}
	rec.Write(record.Event{Kind: record.Stopped})
	return rec.Close()
}
