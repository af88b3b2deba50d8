// Package equivalence holds the differential suite: random sequences of operations applied in
// the same order to client-go's workqueue (v0.37.2, the mutex-and-Cond design) and to
// actorqueue, inside one testing/synctest bubble, with every observation compared. See
// stress/README.md for what it covers and how to reproduce a failure.
package equivalence
