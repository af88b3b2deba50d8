package bench

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// ProductionSpec is rows P1, P2 and P4 of issue 26 and rows D and M of issue 35: a queue run
// as a controller runs it. Producers add informer-like bursts of string keys (InformerStream);
// workers spend CPU in each reconcile, and may wait as for an API call; a few reconciles fail
// and are retried with AddRateLimited, the others end with Forget.
type ProductionSpec struct {
	// Objects is how many objects there are: key k is "namespace-<k mod 50>/object-<k>".
	Objects int
	// Events is how many adds the producers make in all, their initial lists included.
	Events int
	// Producers is how many goroutines add, 1 if zero. Each adds Events/Producers keys, a
	// stream of its own (InformerStream): the initial list of Objects, then bursts, as
	// informers whose events map to the same keys do.
	Producers int
	// Burst is how many adds a producer makes at once. After each burst it waits until at most
	// Backlog keys are owed a reconcile, so that bursts arrive while the workers are busy and
	// the queue holds about Backlog keys plus a burst, as in a controller that keeps up.
	Burst int
	// Window is how many consecutive objects a burst draws its keys from (4·Burst if zero): a
	// window smaller than Burst adds each key of the burst about Burst/Window times.
	Window int
	// Backlog is how many keys may be owed a reconcile when a producer starts its next burst
	// (Burst if zero).
	Backlog int
	// Workers is how many goroutines reconcile.
	Workers int
	// Work is the CPU each reconcile spends, in rounds of Spend (see WorkFor).
	Work int
	// Wait is how long each reconcile then sleeps, as for a call to an API server; zero for
	// none.
	Wait time.Duration
	// FailPermille is how many reconciles in a thousand fail. Whether one fails is decided by
	// the key and how many times it was reconciled, the same in every run; a key fails at most
	// three times in a row.
	FailPermille int
	// Retry is the queue's exponential-failure limiter.
	Retry Retry
	// Sink, if not nil, makes the queue named, recording its metrics there (Impl.NewNamed);
	// nil is an unnamed queue (Impl.NewStringKeyed).
	Sink *Sink
	// Priorities makes it row P4: the queue is Impl.NewPrioritized's, named, recording in
	// controller-runtime's registry. The initial list is added at controller-runtime's low
	// priority (-100), one watch event in ten at priority 10, the rest at none, each with
	// AddWithOpts, as controller-runtime's event handlers add; a failure is retried with
	// AddWithOpts RateLimited at the item's priority, and RequeuePermille of the reconciles
	// that succeed ask to come back 1 to 5 ms later (RequeueAfter: Forget, then AddWithOpts
	// After), as controller-runtime's reconcile loop does.
	Priorities bool
	// RequeuePermille is how many successful reconciles in a thousand ask for a RequeueAfter,
	// with Priorities only.
	RequeuePermille int
	// Busy is how many goroutines spin on the CPU in the same process during the run (row P2).
	Busy int
	// Deadline, if positive, ends a run that has not drained by then: the producer stops, and
	// the figures are those of the time so far. It bounds the run time of row P2, where one
	// run can take ten times as long as another.
	Deadline time.Duration
}

// ProductionResult is what a production run measured.
type ProductionResult struct {
	// Elapsed runs from the first add until every key has been reconciled successfully after
	// its last add, the time to drain, or until the deadline if Drained is false.
	Elapsed time.Duration
	// Drained is false for a run cut short by the spec's Deadline.
	Drained bool
	// Reconciles counts the reconciles, failed ones included: all of them in a drained run,
	// those made before the deadline in one cut short. Keys added again before their
	// reconcile are reconciled once, so the count depends on timing: compare reconciles/s.
	Reconciles int64
	// Failures counts the reconciles that failed and were retried; Requeues those that asked
	// for a RequeueAfter.
	Failures, Requeues int64
	// CPU is the process's CPU time over Elapsed (getrusage: every goroutine, the spinners of
	// Busy included), if CPUKnown.
	CPU      time.Duration
	CPUKnown bool
	// Name is the queue's name, "" for an unnamed queue.
	Name string
	// Spins counts the spins of the Busy goroutines (spinRounds rounds of Spend each).
	Spins int64
	// Latencies are the Add-to-Get latencies, sorted: for each add that found its key owed no
	// reconcile, from just before that Add until a worker's Get returned the key next. Adds of
	// a key already owed one, which the queue merges, and retries are not timed.
	Latencies []time.Duration
}

// queueSeq numbers the named queues, so that each has a name of its own.
var queueSeq atomic.Int64

// queueName returns a name no queue of this process had: prefix-N.
func queueName(prefix string) string {
	return prefix + "-" + strconv.FormatInt(queueSeq.Add(1), 10)
}

// Production runs spec on a new queue of impl; ok is false if impl cannot take part (row P4 on
// a queue without priorities).
//
// To know when the queue has drained, the workload counts the keys owed a reconcile
// (pending): an add of a key not yet owed one makes it owed, and a reconcile that succeeds
// pays what its key owes, including the adds it took before failing or asking for a
// RequeueAfter. Each producer holds one unit until it has added everything, so pending falls
// to zero once, at the end. Each producer is a goroutine of its own, as an informer's is.
func Production(impl Impl, spec ProductionSpec) (res ProductionResult, ok bool) {
	producers := max(1, spec.Producers)
	r := &productionRun{spec: spec, keys: ObjectKeys(spec.Objects), backlog: int64(spec.Backlog),
		owed: make([]atomic.Bool, spec.Objects), addedAt: make([]atomic.Int64, spec.Objects),
		state: make([]keyState, spec.Objects), progress: make(chan struct{}, producers),
		finished: make(chan struct{}), stop: make(chan struct{})}
	if r.backlog == 0 {
		r.backlog = int64(spec.Burst)
	}
	switch {
	case spec.Priorities:
		if impl.NewPrioritized == nil {
			return res, false
		}
		res.Name = queueName("production")
		r.pq = impl.NewPrioritized(res.Name, spec.Retry)
		r.q = r.pq
	case spec.Sink != nil:
		res.Name = queueName("production")
		r.q = impl.NewNamed(res.Name, spec.Retry, *spec.Sink)
	default:
		r.q = impl.NewStringKeyed(spec.Retry)
	}
	window := spec.Window
	if window == 0 {
		window = 4 * spec.Burst
	}
	streams := make([][]int, producers)
	for p := range streams {
		streams[p] = InformerStream(spec.Objects, spec.Events/producers, spec.Burst, window, uint64(p))
	}
	r.pending.Store(int64(producers)) // each producer's hold
	var workers, producer sync.WaitGroup
	for range spec.Workers {
		workers.Go(r.work)
	}
	stopSpinning := spin(spec.Busy)

	cpuBefore, cpuKnown := ProcessCPU()
	r.start = time.Now()
	for _, events := range streams {
		producer.Go(func() { r.produce(events) })
	}
	var deadline <-chan time.Time
	if spec.Deadline > 0 {
		timer := time.NewTimer(spec.Deadline)
		defer timer.Stop()
		deadline = timer.C
	}
	select {
	case <-r.finished:
		res.Drained = true
	case <-deadline:
		close(r.stop)
	}
	res.Elapsed = time.Since(r.start)
	res.Reconciles = r.reconciles.Load() // before the workers take what the queue still holds
	cpuAfter, cpuAfterKnown := ProcessCPU()
	res.CPU, res.CPUKnown = cpuAfter-cpuBefore, cpuKnown && cpuAfterKnown
	res.Spins = stopSpinning()
	producer.Wait()
	r.q.ShutDown()
	workers.Wait()
	res.Failures, res.Requeues = r.failures.Load(), r.requeues.Load()
	if res.Drained {
		res.Reconciles = r.reconciles.Load()
	}
	slices.Sort(r.latencies)
	res.Latencies = r.latencies
	return res, true
}

// productionRun is the state of one Production run.
type productionRun struct {
	spec    ProductionSpec
	q       Keyed[string]
	pq      Prioritized // q, if it has priorities (row P4); nil otherwise
	keys    []string
	backlog int64 // the spec's Backlog, or its Burst
	start   time.Time
	// owed[k] is set by an add of key k and cleared by the next reconcile of k to start;
	// addedAt[k] is when the add that set it began, in nanoseconds from start.
	owed    []atomic.Bool
	addedAt []atomic.Int64
	state   []keyState
	// pending counts the keys owed a reconcile, and each producer's hold.
	pending atomic.Int64
	// waiting counts the producers that wait for pending to fall; progress wakes them, with a
	// token for each producer, so that none is left waiting when several are.
	waiting  atomic.Int32
	progress chan struct{}
	// finished is closed when pending falls to zero; stop, at the deadline.
	finished, stop                 chan struct{}
	reconciles, failures, requeues atomic.Int64
	// latencies collects the workers' Add-to-Get latencies as they return.
	mu        sync.Mutex
	latencies []time.Duration
}

// keyState is what the workload knows of one key. Only the worker holding the key reads or
// writes it: the queue hands a key to one worker at a time.
type keyState struct {
	reconciles uint64 // reconciles so far
	streak     int    // failures in a row
	held       int64  // units of pending this key's next successful reconcile pays
	requeued   bool   // asked for a RequeueAfter since it last paid
}

// The priorities of row P4: controller-runtime's low priority, which its handlers give the
// initial list, and a high one for a share of the watch events.
var lowPriority, highPriority = -100, 10

// produce adds the events, a burst at a time, then lets go of the producer's hold. It returns
// early when stop closes. The instant of an add that makes its key owed is stored before the
// key is marked owed, so that the worker that clears the mark reads it.
func (r *productionRun) produce(events []int) {
	for i, k := range events {
		if !r.owed[k].Load() {
			r.addedAt[k].Store(int64(time.Since(r.start)))
			if !r.owed[k].Swap(true) {
				r.pending.Add(1)
			}
		}
		if r.pq != nil {
			var opts priorityqueue.AddOpts
			switch {
			case i < r.spec.Objects:
				opts.Priority = &lowPriority
			case mix(uint64(i), 10)%10 == 0:
				opts.Priority = &highPriority
			}
			r.pq.AddWithOpts(opts, r.keys[k])
		} else {
			r.q.Add(r.keys[k])
		}
		if (i+1)%r.spec.Burst == 0 {
			r.waiting.Add(1)
			for r.pending.Load() > r.backlog {
				select {
				case <-r.progress:
				case <-r.stop:
					return
				}
			}
			r.waiting.Add(-1)
		}
	}
	r.pay(1)
}

// pay takes units off pending, closes finished if none are left, and wakes the producers that
// wait if few enough are.
func (r *productionRun) pay(units int64) {
	if units == 0 {
		return
	}
	left := r.pending.Add(-units)
	if left == 0 {
		close(r.finished)
	} else if left <= r.backlog && r.waiting.Load() > 0 {
		for range cap(r.progress) {
			select {
			case r.progress <- struct{}{}:
			default:
			}
		}
	}
}

// work is a worker: it reconciles what the queue hands it until shutdown.
func (r *productionRun) work() {
	var latencies []time.Duration
	defer func() {
		r.mu.Lock()
		r.latencies = append(r.latencies, latencies...)
		r.mu.Unlock()
	}()
	for {
		var (
			key      string
			priority int
			shutdown bool
		)
		if r.pq != nil {
			key, priority, shutdown = r.pq.GetWithPriority()
		} else {
			key, shutdown = r.q.Get()
		}
		if shutdown {
			return
		}
		if lat, ok := r.reconcile(key, priority); ok {
			latencies = append(latencies, lat)
		}
	}
}

// reconcile spends the spec's CPU on key and waits the spec's Wait, then fails, asks for a
// RequeueAfter or succeeds, as the spec decides, and calls Done. It returns the key's
// Add-to-Get latency if an add made it owed since its last reconcile began.
func (r *productionRun) reconcile(key string, priority int) (latency time.Duration, timed bool) {
	k := keyOf(key)
	st := &r.state[k]
	if r.owed[k].Swap(false) {
		st.held++
		latency, timed = time.Since(r.start)-time.Duration(r.addedAt[k].Load()), true
	}
	st.reconciles++
	kept.Add(Spend(key, r.spec.Work))
	if r.spec.Wait > 0 {
		time.Sleep(r.spec.Wait)
	}
	fail := st.streak < 3 && mix(uint64(k), st.reconciles)%1000 < uint64(r.spec.FailPermille)
	requeue := !fail && r.pq != nil && !st.requeued &&
		mix(uint64(k)+1<<40, st.reconciles)%1000 < uint64(r.spec.RequeuePermille)
	var paid int64
	switch {
	case fail:
		st.streak++
		r.failures.Add(1)
		if r.pq != nil {
			r.pq.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: &priority}, key)
		} else {
			r.q.AddRateLimited(key)
		}
	case requeue:
		st.streak, st.requeued = 0, true
		r.requeues.Add(1)
		r.q.Forget(key)
		after := time.Millisecond + time.Duration(mix(uint64(k), st.reconciles+1<<40)%4000)*time.Microsecond
		r.pq.AddWithOpts(priorityqueue.AddOpts{After: after, Priority: &priority}, key)
	default:
		st.streak, st.requeued = 0, false
		r.q.Forget(key)
		paid, st.held = st.held, 0
	}
	r.q.Done(key)
	r.reconciles.Add(1)
	r.pay(paid)
	return latency, timed
}
