package main

// methods says how each row is measured; the report prints it under the table.
const methods = `How each row is measured (code: stress/bench):
- All four run the same workload code on int keys (string keys in rows 1s and 2s and P) through
  client-go's rate-limiting interface; each run makes a new queue (an unnamed rate-limiting
  queue with the exponential limiter, 5 ms doubling to 1000 s) and shuts it down after.
  Before each run: a GC. "actorqueue priority" is the controllerruntime module's queue
  (controllerruntime.New), compared with controller-runtime's; "actorqueue", the FIFO queue,
  with client-go's.
  controller-runtime's priorityqueue.New and ours get an empty name, which makes them record no
  metrics (the others record none either) outside rows P; each has one kind of queue, which
  stands in for all four kinds in rows G and W, named with a metrics provider that discards in
  Gd and Wd.
- Rows 1–3, 9: producers Add distinct keys, workers Get and Done; items/s from the first Add
  to the last Done. 9b counts the observer's calls in the same time.
- Rows 1s, 2s: rows 1 and 2 on queues of strings, which issue 5 sets no target. Key k is
  "namespace-<k mod 50>/object-<k>", built before the run; Add and Done are given that very
  string, and the workers read k back from the string Get returns (counted in their time).
- Row 4: 8 producers Add keys drawn from 1000; every other item handed out is added again by
  its worker before Done (up to Adds/8 such re-adds). Ends when, for every key, a Get returned
  after its last Add began; adds/s counts the producers' Adds.
- Row 5: 8 producers AddAfter with delays uniform in [0, 50 ms] (fixed seed); items/s from the
  first AddAfter to the last Done, so no run is shorter than 50 ms.
- Row 6: every item fails 3 times (AddRateLimited), then Forget; Gets/s counts all 4 Gets of
  each item; the back-offs alone take 35 ms.
- Row 7a: growth of live heap plus goroutine stacks after a GC, per queue. Goroutine counts
  (7b, G): goroutines carrying a profiler label set while the queues were created (goroutines
  inherit labels), so nothing else in the process counts.
- Wake-ups (7c, W): the queues idle for one simulated minute inside a testing/synctest bubble,
  whose fake clock jumps from timer to timer, under an execution trace (runtime/trace); a
  wake-up is the bubble's clock, as it fires a timer, waking one of the queues' goroutines or
  starting one (time.AfterFunc), in that minute. It runs in a child process, since synctest
  needs a *testing.T; it is exact, so it runs once.
- Row S: one delaying queue at a time; runtime.NumGoroutine just before and just after
  ShutDown, without yielding in between: the queue's goroutines that have not ended are left.
- Row 8: one producer Adds at a steady pace (sleeping until each Add is due); latency from just
  before Add until the worker's Get returned; p50 and p99 by nearest rank.
- Row B: live heap growth after queueing distinct keys with no worker, per item, the queue at
  rest: the baseline and the figure are each read once a collection frees less than 64 KiB,
  a millisecond after the one before (a queue measured before, held by a cleanup or its
  goroutines, is then gone, and so are the mailbox segments actorqueue's owner drops as it
  goes to sleep after the burst). Tables grow by doubling, so the figure depends on where the
  count falls between two doublings: the title says how full actorqueue's waiting set is
  (16 bytes a slot for an int key, beside a FIFO ring of 8 bytes a slot).
- Row A: runtime.MemStats.Mallocs over Add, Get, Done in one goroutine, per cycle, counting
  every goroutine's allocations (a queue's own goroutines allocate for it).
- Rows P1, P2, P4 (issue 26, bench.Production): a named queue on string keys
  ("namespace-<k mod 50>/object-<k>"), a unique name per run. P1a–d: a metrics provider of
  atomic counters and gauges (histograms as atomic count and sum); P1e–h: real Prometheus
  metrics, each through its library's own wiring: our prometheus module (a fresh registry per
  run); for client-go, component-base's provider (k8s.io/component-base/metrics/prometheus/
  workqueue, installed as client-go's global provider, in component-base's legacyregistry);
  the priority queues in controller-runtime's registry with its own provider (ours: the
  controllerruntime module's).
  One producer goroutine adds the initial list (every object once), then watch events in bursts
  of 256 drawn from windows of 1024 objects (keys repeat within and across bursts); after each
  burst it waits until fewer than 256 keys are owed a reconcile. 8 workers spend the stated CPU
  in each reconcile (FNV hashing of the key, calibrated at the start); 2% of reconciles fail
  (fixed by key and attempt, at most 3 in a row) and are retried with AddRateLimited, the rest
  call Forget. The run ends when every key has been reconciled successfully after its last
  add. Reconciles/s counts every reconcile (a duplicate add that a queue merged is not
  reconciled twice); CPU per reconcile is the process's user+system time from getrusage over
  the run, divided by the reconciles.
- Row P2: P1e (P2b: unnamed, no metrics) with runtime.GOMAXPROCS(0) goroutines hashing
  without blocking in the same process; a run not drained by its deadline is cut there, and
  reconciles/s counts the reconciles until then. The worst round is the figure to read. P2c
  and P2d: the p99 Add-to-Get latency of the same runs (as in rows D).
- Row P3 (bench.Steady): one producer offers distinct string keys at a fixed rate for a fixed
  time, adding every item that is due, then sleeping until the next is (an overshooting sleep is
  caught up in one batch); the workers spend the stated CPU on each; process CPU per item from
  getrusage; latency from just before Add until Get returned, p50 and p99 by nearest rank. Named
  queues record Prometheus metrics as in P1e–h.
- Rows D (issue 35, bench.Production): duplicate-heavy bursts. Two producers, as two informers
  whose events map to the same keys, each add the initial list and then bursts of 768 adds
  drawn from a window of 256 consecutive objects (each key of a burst about 3 times), until
  the adds average 12 per key; a producer starts its next burst once at most 256 keys are
  owed a reconcile. Named, Prometheus as in P1e–h. Wall time from the first add until every
  key was reconciled after its last add; the process's CPU time over it (getrusage); and the
  p99 Add-to-Get latency: for each add that found its key owed no reconcile, from just before
  the Add until a worker's Get returned the key (the other adds are merged, retries not timed).
- Row M (issue 35): one producer adds every key at once, as an initial list; 1,000 workers
  each spend the stated CPU then sleep 200 µs per reconcile, as for an API call; no failures.
  Named, Prometheus as in P1e–h. Items/s until the last reconcile; process CPU per item.
- Row P4: the priority queues only (the FIFO queues have no priorities: n/a), named in
  controller-runtime's registry, on P1e's workload with controller-runtime's calls: the initial
  list at priority -100 and one watch event in ten at priority 10 (AddWithOpts), workers take
  items with GetWithPriority, a failure is retried with AddWithOpts RateLimited at the item's
  priority, and 2% of successful reconciles ask for a RequeueAfter of 1–5 ms (Forget, then
  AddWithOpts After).
- Rows U and X (issue 46): keys that change in bursts, as an informer reports an object
  updated many times in a row. Each key's burst starts at its turn (the keys' bursts start one
  after the other, evenly over the time the title says) and makes 5 to 20 changes (rows X: 2 to
  5) at instants uniform within 100 ms (25 ms), the same in every run (fixed seed); one
  producer adds each change at its instant. 8 workers reconcile (Get, then sleeping the step
  the title says, then Forget and Done). A key is reconciled once a reconcile run to its end
  began after its last change (its Get returned after that Add began, as row 4 counts). U1b:
  actorqueue's queues with Debounce; the peers have no such option, so their figures are their
  plain queues' (as rows F). U3: from a key's last change to the start of that reconcile, the
  median over keys: what the window adds. X: reconciles of 25 steps of 2 ms; in X1b,
  actorqueue's reconciles ask Superseded(key) before each step and stop once it is true (the
  key is reconciled again after); the peers cannot, and run every reconcile to its end. Steps
  run counts the work done; wall time runs until every key was reconciled.`
