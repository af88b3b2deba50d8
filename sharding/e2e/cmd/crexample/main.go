// Command crexample runs three replicas of a sharded controller-runtime controller against a
// real kube-apiserver, and prints what the sharding does: how the replicas share the buckets,
// that each ConfigMap is reconciled by the replica holding its bucket, and how a replica that
// leaves hands its buckets over to the others.
//
// From sharding/e2e:
//
//	GOWORK=off go run ./cmd/crexample
//
// It needs only Go. The first run builds kube-apiserver from k8s.io/kubernetes (a tool of this
// module), which takes minutes; later runs take about 20 s. In a temporary directory, removed
// at the end (kept, and named, if the run fails or with -keep), it
//
//  1. starts kube-apiserver on an etcd embedded in this process (package internal/cluster);
//  2. creates a namespace and 24 ConfigMaps;
//  3. starts three replicas of the controller, each a separate process: this program again,
//     run with -replica (replica.go, the part to copy into a controller of your own);
//  4. waits until the replicas share the 12 buckets evenly, changes every ConfigMap, and checks
//     that each was reconciled by the replica holding its bucket;
//  5. stops one replica with SIGTERM, times the hand-over of its buckets to the other two, and
//     checks the reconciles again;
//  6. stops the other two and checks that they released every Lease.
//
// Each step has a deadline: if something does not happen in time, it says what and exits 1.
// The replicas' lines are prefixed with their names; their logs (klog's, controller-runtime's)
// go to files in the temporary directory.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// What the orchestration and the replicas agree on.
const (
	// leaseName prefixes the buckets' Leases: bucket b is the Lease "crexample-<b>".
	leaseName = "crexample"
	// buckets is the number of buckets the ConfigMaps are split into.
	buckets = 12
	// The annotations a reconcile writes on a ConfigMap: which replica reconciled it, and the
	// value of its data key genKey that it reconciled.
	annotationBy  = "crexample.actorqueue.io/reconciled-by"
	annotationGen = "crexample.actorqueue.io/reconciled-gen"
	// genKey is the data key of a ConfigMap that the orchestration changes: its generation.
	genKey = "gen"
)

// replicaFlags are the flags of the replica mode: how to reach the API server, in place of
// the in-cluster configuration a deployed controller would use.
type replicaFlags struct {
	name, server, ca, token, namespace string
}

func main() {
	var f replicaFlags
	flag.StringVar(&f.name, "replica", "", "run as the replica of this name (the orchestration starts the replicas so)")
	flag.StringVar(&f.server, "server", "", "replica: API server URL")
	flag.StringVar(&f.ca, "ca", "", "replica: file of the CA that signed the server's certificate")
	flag.StringVar(&f.token, "token", "", "replica: bearer token")
	flag.StringVar(&f.namespace, "namespace", "", "replica: namespace of the ConfigMaps and the Leases")
	keep := flag.Bool("keep", false, "keep the temporary directory (the replicas' logs, kube-apiserver's, etcd's data)")
	flag.Parse()

	var err error
	switch {
	case f.name != "" && (f.server == "" || f.ca == "" || f.token == "" || f.namespace == ""):
		err = errors.New("-replica needs -server, -ca, -token and -namespace")
	case f.name != "":
		err = runReplica(f)
	default:
		err = orchestrate(*keep)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crexample:", err)
		os.Exit(1)
	}
}
