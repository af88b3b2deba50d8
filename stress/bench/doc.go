// Package bench holds the side-by-side workloads of issue 5: one code path that drives
// actorqueue, client-go's workqueue and controller-runtime's priorityqueue through the common
// interface [Queue], so that every figure compares the three on identical work.
//
// Each workload is a plain function that builds its own queue from an [Impl], runs, shuts the
// queue down and returns what it measured. The Go benchmarks of this package
// (go test -bench . ./stress/bench/) and the comparison command (go run ./stress/cmd/compare)
// both call them. Timing targets live in the command only; the tests of this package check
// that each workload does the work it claims (every item processed, every retry made), not how
// fast.
//
// Keys are ints, so that no workload spends time formatting strings and the figures show the
// queues' own costs. [WithStringKeys] runs a workload on queues of strings instead, the keys
// controllers use, which every queue must hash on each lookup.
package bench
