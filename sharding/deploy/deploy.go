// Package deploy holds the manifests a user applies to run a sharded controller (package
// sharding) in a cluster, embedded so that tests and tools can apply them as they are:
//
//   - rbac.yaml: the replicas' ServiceAccount; a Role and RoleBinding with exactly the verbs
//     the sharder uses on Leases, in the Leases' namespace; a Role and RoleBinding to list and
//     watch the controller's objects in that namespace (a sharded watch needs nothing more);
//   - rbac-cluster.yaml: the objects' ClusterRole and ClusterRoleBinding instead, for a
//     controller of every namespace;
//   - deployment.yaml: the replicas, with the pod's name and namespace from the downward API
//     and a termination grace period that covers a graceful hand-over;
//   - pdb.yaml: a PodDisruptionBudget that evicts one replica at a time.
//
// The sharding README ("Deploying") says why each permission and setting is there. The tests
// of this package decode every manifest strictly with client-go's scheme and check them
// against the sharder: the Role's verbs against the requests a sharder makes, the grace period
// against its durations. The end-to-end module applies rbac.yaml to a real kube-apiserver and
// runs its replicas under it, with a token the server issues for the ServiceAccount.
package deploy

import "embed"

// Manifests are the YAML files of this package's directory, named as above, each holding one
// or more documents separated by "---". The names and namespace they use, my-controller and
// my-system, are placeholders to rename.
//
//go:embed *.yaml
var Manifests embed.FS
