package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	workqueue "github.com/actorqueue/workqueue"
	aqprometheus "github.com/actorqueue/workqueue/prometheus"
	"github.com/actorqueue/workqueue/stress/bench"
)

// Issue 28's rows F2 to F4: what the options Group and MaxPerGroup buy, and cost when used.
// Their cost when unused (F1) is an A/B of two builds of the library, measured apart: see
// stress/PERFORMANCE.md. client-go and controller-runtime have neither option: their figures
// are those of their plain queues, the baseline "without".
const (
	// burstItems is the burst of one big group in row F2.
	burstItems = 10_000
	// smallGroups and smallPerGroup are the small groups' items of row F2, queued right after
	// the burst.
	smallGroups, smallPerGroup = 10, 10
	// fairWorkers take the items of row F2: one, so that the order of the Gets is the queue's
	// order of hand-outs. With several workers on two cores, an item handed to a getter that is
	// not running waits for it, and a few small items then come out hundreds of places late.
	fairWorkers = 1
	// hotItems of one group, then otherItems over otherGroups groups, make row F3's queue.
	hotItems, otherItems, otherGroups = 200, 200, 10
	// limitWorkers take the items of row F3, with MaxPerGroup limitPerGroup or none.
	limitWorkers, limitPerGroup = 8, 2
)

// The CPU a worker spends per item in rows F2 and F3, and the time it then waits in row F3, as
// for a call to an API server: with CPU alone, two cores keep about two items in processing.
const (
	burstWork = 2 * time.Microsecond
	hotWork   = 20 * time.Microsecond
	hotWait   = 200 * time.Microsecond
)

// namespaceOf returns the namespace of a key "namespace/name": the group of rows F2 to F4.
func namespaceOf(key string) string {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return key
}

// groupedQueue returns a queue of impl on string keys grouped by namespace, with at most limit
// items of one group in processing (0: no limit), for the implementations that have the
// options; for the others, and with grouped false, the implementation's plain queue.
func groupedQueue(impl bench.Impl, grouped bool, limit int) bench.Keyed[string] {
	if !grouped {
		return impl.NewStringKeyed(bench.DefaultRetry)
	}
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](bench.DefaultRetry.Base, bench.DefaultRetry.Max)
	switch impl.Name {
	case actorQueue:
		return workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{
			Group: namespaceOf, MaxPerGroup: limit})
	case actorQueuePriority:
		return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[string]{
			RateLimiter: limiter, Group: namespaceOf, MaxPerGroup: limit})
	}
	return impl.NewStringKeyed(bench.DefaultRetry)
}

// burstResult is what a run of row F2 measured for the small groups' items: each one's wait,
// from its Add until its Get returned, and its place among the items handed out (1 for the
// first), both sorted.
type burstResult struct {
	waits  []time.Duration
	places []int
}

// smallGroupWaits is row F2: burstItems keys of one namespace, then smallGroups namespaces of
// smallPerGroup keys each (one of each in turn) are queued, then fairWorkers workers take
// everything, spending work rounds of CPU per item.
func smallGroupWaits(q bench.Keyed[string], work int) burstResult {
	for i := range burstItems {
		q.Add("big/object-" + strconv.Itoa(i))
	}
	small := smallGroups * smallPerGroup
	addedAt := make(map[string]time.Time, small)
	for i := range smallPerGroup {
		for g := range smallGroups {
			key := fmt.Sprintf("small-%d/object-%d", g, i)
			addedAt[key] = time.Now()
			q.Add(key)
		}
	}
	var (
		handed atomic.Int64
		mu     sync.Mutex
		res    burstResult
	)
	crew(q, fairWorkers, burstItems+small, func(key string) {
		place := int(handed.Add(1))
		if at, ok := addedAt[key]; ok {
			wait := time.Since(at)
			mu.Lock()
			res.waits, res.places = append(res.waits, wait), append(res.places, place)
			mu.Unlock()
		}
		bench.Spend(key, work)
	})
	slices.Sort(res.waits)
	slices.Sort(res.places)
	return res
}

// mostOfOneGroup is row F3: hotItems keys of one namespace, then otherItems keys over
// otherGroups namespaces, are queued, then limitWorkers workers take everything, spending work
// rounds of CPU per item, then sleeping hotWait. It returns the most items of the hot namespace
// in processing at once (between Get and Done, counted by the workers), and of any other.
func mostOfOneGroup(q bench.Keyed[string], work int) (hot, other int) {
	for i := range hotItems {
		q.Add("hot/object-" + strconv.Itoa(i))
	}
	for i := range otherItems {
		q.Add(fmt.Sprintf("other-%d/object-%d", i%otherGroups, i))
	}
	counts := make(map[string]*atomic.Int64)
	counts["hot"] = new(atomic.Int64)
	for g := range otherGroups {
		counts["other-"+strconv.Itoa(g)] = new(atomic.Int64)
	}
	var mostHot, mostOther atomic.Int64
	raise := func(most *atomic.Int64, n int64) {
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
	}
	crew(q, limitWorkers, hotItems+otherItems, func(key string) {
		ns := namespaceOf(key)
		n := counts[ns].Add(1)
		if ns == "hot" {
			raise(&mostHot, n)
		} else {
			raise(&mostOther, n)
		}
		bench.Spend(key, work)
		time.Sleep(hotWait)
		counts[ns].Add(-1)
	})
	return int(mostHot.Load()), int(mostOther.Load())
}

// crew runs workers goroutines that Get from q, call process and Done each item, until items
// items are processed; it then shuts q down and waits for the workers.
func crew(q bench.Keyed[string], workers, items int, process func(key string)) {
	var left atomic.Int64
	left.Store(int64(items))
	finished := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				process(key)
				q.Done(key)
				if left.Add(-1) == 0 {
					close(finished)
				}
			}
		})
	}
	<-finished
	q.ShutDown()
	wg.Wait()
}

// groupedActorQueue is actorqueue's FIFO queue whose named queues group their keys by
// namespace: row F4. It records its metrics in a Prometheus registry (the only sink row F4
// uses).
func groupedActorQueue() bench.Impl {
	impl := bench.ActorQueue()
	impl.NewNamed = func(name string, r bench.Retry, sink bench.Sink) bench.Keyed[string] {
		p, err := aqprometheus.NewProvider(sink.Registry)
		if err != nil {
			panic("compare: " + err.Error())
		}
		return workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](r.Base, r.Max),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: p, Group: namespaceOf})
	}
	return impl
}

// groupPlan returns the experiments of rows F2 to F4 in mode m.
func groupPlan(m mode) []experiment {
	millis := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	nan := math.NaN()
	behindBurst := func(grouped bool) func(bench.Impl) []float64 {
		return func(impl bench.Impl) []float64 {
			res := smallGroupWaits(groupedQueue(impl, grouped, 0), bench.WorkFor(burstWork))
			return []float64{millis(bench.Quantile(res.waits, 0.99))}
		}
	}
	limited := func(limit int) func(bench.Impl) []float64 {
		return func(impl bench.Impl) []float64 {
			hot, _ := mostOfOneGroup(groupedQueue(impl, limit > 0, limit), bench.WorkFor(hotWork))
			return []float64{float64(hot)}
		}
	}
	p1e := func(impl bench.Impl) bench.ProductionSpec {
		return bench.ProductionSpec{Objects: m.objects, Events: m.events, Burst: burst, Workers: workers,
			Work: bench.WorkFor(shortWork), FailPermille: failPermille, Retry: bench.DefaultRetry,
			Sink: prometheusMetrics.sink()}
	}
	smalls := fmt.Sprintf("%d×%d small-group items queued behind a %dk-item burst of one group, %d worker, %v CPU each: p99 wait",
		smallGroups, smallPerGroup, burstItems/1000, fairWorkers, burstWork)
	hots := fmt.Sprintf("most items of one group in processing at once (%d of it queued before %d of %d others), %d workers, %v CPU and a %v wait each",
		hotItems, otherItems, otherGroups, limitWorkers, hotWork, hotWait)
	return []experiment{
		{name: "fairness, without Group", rows: []row{
			{id: "F2a", title: smalls + ", no Group", unit: "ms", better: lowerIsBetter},
		}, measure: behindBurst(false)},
		{name: "fairness, with Group", rows: []row{
			{id: "F2b", title: "the same with Group = namespace (client-go, controller-runtime: no such option, as F2a)", unit: "ms", better: lowerIsBetter},
		}, measure: behindBurst(true)},
		{name: "limit, none", rows: []row{
			{id: "F3a", title: hots + ", no MaxPerGroup", unit: "items", better: lowerIsBetter},
		}, measure: limited(0)},
		{name: "limit, 2", rows: []row{
			{id: "F3b", title: fmt.Sprintf("the same with Group = namespace, MaxPerGroup = %d (client-go, controller-runtime: no such option, as F3a)", limitPerGroup), unit: "items", better: lowerIsBetter},
		}, measure: limited(limitPerGroup)},
		{name: "production with Group", rows: []row{
			{id: "F4a", title: "P1e on actorqueue's FIFO queue, measured with F4b", unit: "reconciles/s", better: higherIsBetter},
			{id: "F4b", title: "P1e with Group = namespace (50 groups): the cost of the option when used", unit: "reconciles/s", better: higherIsBetter},
		}, measure: func(impl bench.Impl) []float64 {
			if impl.Name != actorQueue {
				return []float64{nan, nan}
			}
			perSecond := func(res bench.ProductionResult) float64 { return float64(res.Reconciles) / res.Elapsed.Seconds() }
			without, _ := bench.Production(impl, p1e(impl))
			with, _ := bench.Production(groupedActorQueue(), p1e(impl))
			return []float64{perSecond(without), perSecond(with)}
		}},
	}
}
