// Package bench holds the side-by-side workloads of issues 5 and 26: one code path that drives
// actorqueue's FIFO queue, client-go's workqueue, actorqueue's priority queue (the queue of the
// controllerruntime module) and controller-runtime's priorityqueue through the common interfaces
// [Queue] and [Keyed], so that every figure compares them on identical work: the FIFO queues
// with each other, the priority queues with each other.
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
//
// The workloads of issue 26 run the queues as controllers do: [Production] (a named queue with
// metrics, informer-like bursts of string keys, workers that spend CPU in each reconcile and
// retry a few failures; with priorities and delays for the priority queues; in a process kept
// busy by other goroutines), and [Steady] (a fixed offered rate, for the CPU per item and the
// latency). They report the process's CPU time from getrusage ([ProcessCPU]). Issue 35's shapes
// are Production runs too: several producers with duplicate-heavy bursts, a thousand workers
// that wait as for an API call, each add timed to its Get. Issue 36's heap figures for a queue
// of many distinct keys come from [QueueHeap]; every heap figure is read from a settled heap
// (see [BytesPerItem]).
package bench
