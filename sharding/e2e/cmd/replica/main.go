// Command replica is one replica of the sharded controller that the end-to-end tests run as
// separate processes: a sharding.Sharder, a sharded queue of this project and workers, fed by
// an informer on the ConfigMaps of one namespace. Every reconcile's interval, every change of
// the buckets held and every hand-over go to its record (package internal/record).
//
//	replica -server https://127.0.0.1:PORT -ca FILE -token TOKEN -namespace NS -identity NAME \
//	        -record FILE [-buckets 12 -lease 2s -renew 1s -retry 250ms -workers 4 -work 200ms ...]
//
// SIGTERM or SIGINT makes it leave gracefully: its sharder hands every bucket back, then the
// queue shuts down and it exits 0.
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

	"k8s.io/klog/v2"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// Kinds of replica, the -kind flag.
const (
	// kindQueue wires sharding.Wrap around a rate-limiting queue of this project by hand, as
	// the sharding README shows.
	kindQueue = "queue"
	// kindControllerRuntime is reserved for a sharded controller-runtime controller (issue 33);
	// it is not built yet.
	kindControllerRuntime = "controller-runtime"
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
	unsharded               bool
}

func main() {
	var o options
	flag.StringVar(&o.kind, "kind", kindQueue, "the replica's wiring: "+kindQueue+" ("+kindControllerRuntime+" is reserved)")
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
	flag.DurationVar(&o.renew, "renew", time.Second, "Config.RenewDeadline")
	flag.DurationVar(&o.retry, "retry", 250*time.Millisecond, "Config.RetryPeriod")
	flag.Float64Var(&o.drift, "drift", 0, "Config.MaxClockDrift (0: the default)")
	flag.DurationVar(&o.work, "work", 200*time.Millisecond, "how long a reconcile works")
	flag.DurationVar(&o.stopLatency, "stop-latency", 100*time.Millisecond, "how long a reconcile takes to return once its context is done")
	flag.BoolVar(&o.unsharded, "unsharded", false, "process every key, without a sharder: a control that the tests must catch")
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
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

func (o options) validate() error {
	switch {
	case o.server == "" || o.ca == "" || o.token == "" || o.namespace == "" || o.id == "" || o.record == "":
		return errors.New("-server, -ca, -token, -namespace, -identity and -record are required")
	case o.kind == kindControllerRuntime:
		return errors.New("-kind " + kindControllerRuntime + " is not built yet")
	case o.kind != kindQueue:
		return fmt.Errorf("-kind %q: want %s", o.kind, kindQueue)
	case o.workers <= 0:
		return fmt.Errorf("-workers %d: want > 0", o.workers)
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

// run runs the replica until ctx is done, then leaves gracefully.
func run(ctx context.Context, o options) error {
	rec, err := record.Create(o.record, o.id)
	if err != nil {
		return err
	}
	r, err := newReplica(o, rec)
	if err != nil {
		rec.Close()
		return err
	}
	r.run(ctx)
	rec.Write(record.Event{Kind: record.Stopped})
	return rec.Close()
}
