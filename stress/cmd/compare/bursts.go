package main

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	workqueue "github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/controllerruntime"
	"github.com/actorqueue/workqueue/stress/bench"
)

// Issue 46's rows U and X: objects that change in bursts, as an informer reports them, and what
// the Debounce option and Superseded save. client-go and controller-runtime have neither: their
// figures are those of their plain queues, the baseline "without", as in rows F.
const (
	// burstWorkers reconcile in rows U and X.
	burstWorkers = 8
	// debounceWindow and debounceMaxWait are row U's option.
	debounceWindow, debounceMaxWait = 50 * time.Millisecond, 500 * time.Millisecond
)

// burstSpec is one run of bursts: keys keys, each changing from fewest to most times within
// within, their bursts starting one after the other over spread; each reconcile runs steps
// steps of step, and stops early, when stopEarly, once its key is superseded.
type burstSpec struct {
	keys         int
	spread       time.Duration
	fewest, most int
	within       time.Duration
	steps        int
	step         time.Duration
	stopEarly    bool
}

// changesResult is what a run of bursts measured: the reconciles begun and the steps run in all; the wall
// time from the first change until every key had a reconcile run in full whose Get returned
// after its last change began (as row 4 counts; a change that raced the Get also requeues the
// key); and, for each key, the time from its last change to the start of that reconcile,
// sorted.
type changesResult struct {
	reconciles, steps int
	wall              time.Duration
	latencies         []time.Duration
}

// change is one change of a key, at an offset from the start of the run.
type change struct {
	at  time.Duration
	key int
}

// changes returns the changes of spec's keys, in order of their instants, the same in every run.
func (spec burstSpec) changes() []change {
	r := rand.New(rand.NewPCG(46, 0))
	var out []change
	for k := range spec.keys {
		start := spec.spread * time.Duration(k) / time.Duration(spec.keys)
		n := spec.fewest + r.IntN(spec.most-spec.fewest+1)
		out = append(out, change{start, k})
		for range n - 1 {
			out = append(out, change{start + time.Duration(r.Int64N(int64(spec.within))), k})
		}
	}
	slices.SortStableFunc(out, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	return out
}

// runBursts runs spec on q: one producer adds each key at the instant of each change, sleeping
// until it is due; burstWorkers workers reconcile. It shuts q down at the end.
func runBursts(q bench.Keyed[string], spec burstSpec) changesResult {
	changes := spec.changes()
	keys := make([]string, spec.keys)
	last := make([]atomic.Int64, spec.keys)    // when the key's last change so far began, since start
	pending := make([]atomic.Int32, spec.keys) // the key's changes not yet returned
	for k := range keys {
		keys[k] = "namespace-" + strconv.Itoa(k%50) + "/object-" + strconv.Itoa(k)
	}
	for _, c := range changes {
		pending[c.key].Add(1)
	}
	index := make(map[string]int, spec.keys)
	for k, key := range keys {
		index[key] = k
	}
	superseded, _ := q.(workqueue.TypedSuperseder[string])
	var (
		reconciles, steps atomic.Int64
		mu                sync.Mutex
		finished          = make([]bool, spec.keys)
		latencies         []time.Duration
		left              = spec.keys
		allDone           = make(chan struct{})
		wall              time.Duration
	)
	start := time.Now()
	var wg sync.WaitGroup
	for range burstWorkers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				k := index[key]
				began := time.Since(start)
				lastChange := time.Duration(last[k].Load())
				covering := pending[k].Load() == 0 && began >= lastChange
				reconciles.Add(1)
				full := true
				for range spec.steps {
					if spec.stopEarly && superseded != nil && superseded.Superseded(key) {
						full = false
						break
					}
					time.Sleep(spec.step)
					steps.Add(1)
				}
				q.Forget(key)
				q.Done(key)
				if !full || !covering {
					continue
				}
				mu.Lock()
				if !finished[k] {
					finished[k] = true
					latencies = append(latencies, began-lastChange)
					if left--; left == 0 {
						wall = time.Since(start)
						close(allDone)
					}
				}
				mu.Unlock()
			}
		})
	}
	for _, c := range changes {
		if d := c.at - time.Since(start); d > 0 {
			time.Sleep(d)
		}
		last[c.key].Store(int64(time.Since(start)))
		q.Add(keys[c.key])
		pending[c.key].Add(-1)
	}
	<-allDone
	q.ShutDown()
	wg.Wait()
	slices.Sort(latencies)
	return changesResult{reconciles: int(reconciles.Load()), steps: int(steps.Load()), wall: wall, latencies: latencies}
}

// burstQueue returns impl's plain queue on string keys; with the options, actorqueue's queues
// debounce (debounce) and are asked whether a key is superseded (the workload's choice), the
// peers' queues being their plain ones.
func burstQueue(impl bench.Impl, debounce bool) bench.Keyed[string] {
	if !debounce {
		return impl.NewStringKeyed(bench.DefaultRetry)
	}
	d := workqueue.Debounce{Window: debounceWindow, MaxWait: debounceMaxWait}
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](bench.DefaultRetry.Base, bench.DefaultRetry.Max)
	switch impl.Name {
	case actorQueue:
		return workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Debounce: d})
	case actorQueuePriority:
		return controllerruntime.New(workqueue.TypedPriorityQueueConfig[string]{RateLimiter: limiter, Debounce: d})
	}
	return impl.NewStringKeyed(bench.DefaultRetry)
}

// burstPlan returns the experiments of rows U and X in mode m.
func burstPlan(m mode) []experiment {
	millis := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	median := func(sorted []time.Duration) float64 {
		if len(sorted) == 0 {
			return math.NaN()
		}
		return millis(bench.Quantile(sorted, 0.5))
	}
	informer := burstSpec{keys: m.burstKeys, spread: m.burstSpread, fewest: 5, most: 20, within: 100 * time.Millisecond,
		steps: 1, step: time.Millisecond}
	// Fewer keys over a longer time: the first reconcile of a key begins at its first change, as
	// it does on a controller that keeps up, so that the later changes come during it.
	long := burstSpec{keys: 3 * m.burstKeys / 10, spread: 2 * m.burstSpread, fewest: 2, most: 5, within: 25 * time.Millisecond,
		steps: 25, step: 2 * time.Millisecond}
	bursts := func(debounce bool) func(bench.Impl) []float64 {
		return func(impl bench.Impl) []float64 {
			res := runBursts(burstQueue(impl, debounce), informer)
			return []float64{float64(res.reconciles), millis(res.wall), median(res.latencies)}
		}
	}
	longRun := func(stopEarly bool) func(bench.Impl) []float64 {
		return func(impl bench.Impl) []float64 {
			spec := long
			spec.stopEarly = stopEarly
			res := runBursts(impl.NewStringKeyed(bench.DefaultRetry), spec)
			return []float64{float64(res.steps), millis(res.wall)}
		}
	}
	burstTitle := fmt.Sprintf("bursty informer: %d keys, each changing %d to %d times within %v (bursts started over %v), %d workers, %v per reconcile",
		informer.keys, informer.fewest, informer.most, informer.within, informer.spread, burstWorkers, informer.step)
	longTitle := fmt.Sprintf("long reconciles (%d steps of %v) of %d keys, each changing %d to %d times within %v (over %v), %d workers",
		long.steps, long.step, long.keys, long.fewest, long.most, long.within, long.spread, burstWorkers)
	withDebounce := fmt.Sprintf("with Debounce{Window: %v, MaxWait: %v} (client-go, controller-runtime: no such option, as U1a)", debounceWindow, debounceMaxWait)
	return []experiment{
		{name: "bursts, without Debounce", rows: []row{
			{id: "U1a", title: burstTitle + ", no Debounce: reconciles run", unit: "reconciles", better: lowerIsBetter},
			{id: "U2a", title: "U1a: wall time until every key was reconciled after its last change", unit: "ms", better: lowerIsBetter},
			{id: "U3a", title: "U1a: from a key's last change to the start of that reconcile, p50", unit: "ms", better: lowerIsBetter},
		}, measure: bursts(false)},
		{name: "bursts, with Debounce", rows: []row{
			{id: "U1b", title: "the same " + withDebounce + ": reconciles run", unit: "reconciles", better: lowerIsBetter},
			{id: "U2b", title: "U1b: wall time", unit: "ms", better: lowerIsBetter},
			{id: "U3b", title: "U1b: from a key's last change to the start of that reconcile, p50 (the latency the window adds)", unit: "ms", better: lowerIsBetter},
		}, measure: bursts(true)},
		{name: "long reconciles, to the end", rows: []row{
			{id: "X1a", title: longTitle + ", each reconcile run to its end: steps run", unit: "steps", better: lowerIsBetter},
			{id: "X2a", title: "X1a: wall time until every key was reconciled in full after its last change", unit: "ms", better: lowerIsBetter},
		}, measure: longRun(false)},
		{name: "long reconciles, stopped when superseded", rows: []row{
			{id: "X1b", title: "the same, a reconcile stopping once Superseded (client-go, controller-runtime: no such method, as X1a): steps run", unit: "steps", better: lowerIsBetter},
			{id: "X2b", title: "X1b: wall time", unit: "ms", better: lowerIsBetter},
		}, measure: longRun(true)},
	}
}
