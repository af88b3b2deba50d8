// Package priority checks actorqueue's priority queue against controller-runtime's (v0.25.2,
// sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue): random sequences of operations
// applied in the same order to both, inside one testing/synctest bubble, with every
// observation compared: the items and priorities handed out, Len, NumRequeues, ShuttingDown,
// and, in one variant, the metrics. A failing sequence is shrunk and printed with its seed.
package priority
