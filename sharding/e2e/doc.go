// Package e2e tests package sharding end to end: replicas of a sharded controller run as
// separate processes against a real kube-apiserver, built from k8s.io/kubernetes, on an etcd
// embedded in the test process, while the tests kill, pause and cut them off.
//
// The tests are in this package's test files; commands cmd/replica (the controller) and the
// internal packages serve them. See README.md for what they assert, the faults, how to run one
// scenario, and what they take.
//
// Command cmd/crexample is a runnable example of a sharded controller-runtime controller: it
// starts the same API server, runs three replicas of a ConfigMap controller as separate
// processes, and prints how they share the buckets and hand them over.
package e2e
