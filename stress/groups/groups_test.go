package groups

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	workqueue "github.com/actorqueue/workqueue"
)

// queue is what the suite needs of every kind: client-go's rate-limiting interface on int keys.
type queue interface {
	workqueue.TypedRateLimitingInterface[int]
}

// options are the options of issue 28 a queue is built with.
type options struct {
	groups     int // Group is key mod groups, named "g<n>"; 0: no Group
	limit      int // MaxPerGroup
	maxRetries int
	giveUp     func(item, attempts int)
}

func (o options) group() func(int) string {
	if o.groups == 0 {
		return nil
	}
	return func(key int) string { return groupName(key % o.groups) }
}

func groupName(n int) string { return "g" + strconv.Itoa(n) }

// kind is one way to build a queue with the options. A plain FIFO queue has no limiter: the
// suite uses it through Add, Get and Done only.
type kind struct {
	name    string
	fifo    bool // hands out what its limit held once shutting down
	retries bool // takes MaxRetries
	build   func(o options) queue
}

func limiter() workqueue.TypedRateLimiter[int] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[int](time.Millisecond, 20*time.Millisecond)
}

var kinds = []kind{{
	name: "FIFO", fifo: true,
	build: func(o options) queue {
		return plainQueue{workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[int]{Group: o.group(), MaxPerGroup: o.limit})}
	},
}, {
	name: "rate-limiting", fifo: true, retries: true,
	build: func(o options) queue {
		return workqueue.NewTypedRateLimitingQueueWithConfig(limiter(), workqueue.TypedRateLimitingQueueConfig[int]{
			Group: o.group(), MaxPerGroup: o.limit, MaxRetries: o.maxRetries, GiveUp: o.giveUp})
	},
}, {
	name: "priority", retries: true,
	build: func(o options) queue {
		return workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[int]{RateLimiter: limiter(),
			Group: o.group(), MaxPerGroup: o.limit, MaxRetries: o.maxRetries, GiveUp: o.giveUp})
	},
}}

// plainQueue is a FIFO queue as a queue: the suite never calls the methods it lacks.
type plainQueue struct{ workqueue.TypedInterface[int] }

func (plainQueue) AddAfter(int, time.Duration) { panic("not a delaying queue") }
func (plainQueue) AddRateLimited(int)          { panic("not a rate-limiting queue") }
func (plainQueue) Forget(int)                  { panic("not a rate-limiting queue") }
func (plainQueue) NumRequeues(int) int         { panic("not a rate-limiting queue") }

// getter returns q's GetWithContext, which every kind has, so that a worker can be called off
// when a queue keeps it waiting.
func getter(q queue) func(ctx context.Context) (int, bool, error) {
	switch q := q.(type) {
	case plainQueue:
		return q.TypedInterface.(workqueue.TypedExtensions[int]).GetWithContext
	case workqueue.TypedExtensions[int]:
		return q.GetWithContext
	}
	panic(fmt.Sprintf("%T has no GetWithContext", q))
}

// guard, deferred, reports a panic of a goroutine of the suite (a queue broken on purpose may
// panic in Get) as a tagged failure, so that the goroutine ends and the test goes on to its
// checks and its shutdown.
func guard(t *testing.T, who string) {
	if p := recover(); p != nil {
		t.Errorf("[panic] %s: %v", who, p)
	}
}

// ledger is what the workers and producers of one queue record, with atomics: the stamps of
// the last add and the last hand-out of each key, which key is in processing, and how many
// items of each group are.
type ledger struct {
	clock      atomic.Int64   // stamps, in order
	lastAdd    []atomic.Int64 // stamp taken before the key's last Add began
	lastGet    []atomic.Int64 // stamp taken after the key's last Get returned
	processing []atomic.Bool
	inGroup    []atomic.Int64 // items of each group in processing
	most       []atomic.Int64 // the most of each group in processing at once
}

func newLedger(keys, groups int) *ledger {
	return &ledger{lastAdd: make([]atomic.Int64, keys), lastGet: make([]atomic.Int64, keys),
		processing: make([]atomic.Bool, keys), inGroup: make([]atomic.Int64, max(groups, 1)), most: make([]atomic.Int64, max(groups, 1))}
}

// TestManyProducersAndWorkers runs 4 producers adding 300 keys each, 8 workers, on every kind,
// with 6 groups and no limit, then a limit of 2, then no Group at all. Workers hold each item
// for a fake 10µs to 80µs, so that many are in processing at once. It checks, as it goes, that
// no key is processed twice at once ([double-processing]) and that no group exceeds its limit
// ([group-limit]); at the end, that every add was followed by a Get of its key
// ([lost-add]), and that with a limit the workers did reach it ([limit-unused]: the test
// would otherwise not test it).
func TestManyProducersAndWorkers(t *testing.T) {
	for _, k := range kinds {
		for _, o := range []options{{groups: 6}, {groups: 6, limit: 2}, {}} {
			t.Run(fmt.Sprintf("%s/groups=%d,limit=%d", k.name, o.groups, o.limit), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { manyProducersAndWorkers(t, k, o) })
			})
		}
	}
}

func manyProducersAndWorkers(t *testing.T, k kind, o options) {
	const keys, producers, rounds, workers = 60, 4, 5, 8
	q := k.build(o)
	l := newLedger(keys, o.groups)
	groupOf := func(key int) int {
		if o.groups == 0 {
			return 0
		}
		return key % o.groups
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			defer guard(t, k.name+" worker")
			for n := 0; ; n++ {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				l.lastGet[key].Store(l.clock.Add(1))
				if !l.processing[key].CompareAndSwap(false, true) {
					t.Errorf("[double-processing] %s: key %d handed to a worker while another processes it", k.name, key)
				}
				g := groupOf(key)
				in := l.inGroup[g].Add(1)
				for m := l.most[g].Load(); in > m && !l.most[g].CompareAndSwap(m, in); m = l.most[g].Load() {
				}
				if o.limit > 0 && in > int64(o.limit) {
					t.Errorf("[group-limit] %s: %d items of group %d in processing at once, MaxPerGroup %d", k.name, in, g, o.limit)
				}
				time.Sleep(time.Duration(10+(w*7+n)%8*10) * time.Microsecond)
				l.inGroup[g].Add(-1)
				l.processing[key].Store(false)
				q.Done(key)
			}
		})
	}
	var adders sync.WaitGroup
	for p := range producers {
		adders.Go(func() {
			defer guard(t, k.name+" producer")
			for r := range rounds {
				for i := range keys {
					key := (i*(p+1) + r*13) % keys
					l.lastAdd[key].Store(l.clock.Add(1))
					q.Add(key)
					if i%16 == 0 {
						time.Sleep(time.Duration(p+1) * 50 * time.Microsecond)
					}
				}
			}
		})
	}
	adders.Wait()
	time.Sleep(time.Second) // fake: every worker is done and waits in Get
	synctest.Wait()
	if n := q.Len(); n != 0 {
		t.Errorf("[lost-add] %s: the workers wait with %d items queued", k.name, n)
	}
	for key := range keys {
		if a, g := l.lastAdd[key].Load(), l.lastGet[key].Load(); g < a {
			t.Errorf("[lost-add] %s: key %d added at stamp %d, last handed out at %d", k.name, key, a, g)
		}
	}
	if o.limit > 0 {
		reached := false
		for g := range o.groups {
			reached = reached || l.most[g].Load() == int64(o.limit)
		}
		if !reached {
			t.Errorf("[limit-unused] %s: no group reached MaxPerGroup %d", k.name, o.limit)
		}
	}
	q.ShutDown()
	wg.Wait()
}

// TestNewGroupWaitsOneTurnPerGroupAhead gives one worker a burst of 500 items of one group and
// 3 items of each of 4 others, then, every 7 hand-outs, one item of a group new to the queue. A
// new group's item must be handed out within as many Gets as there are groups with queued
// items when it is added, plus one ([unfair]). One worker takes the items in the test's own
// goroutine, so the order of the Gets is the queue's order.
func TestNewGroupWaitsOneTurnPerGroupAhead(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Keys: 0..499 the big group, 1000+10g+i the small group g, 2000+n the n-th new group.
				groupOf := func(key int) string {
					switch {
					case key < 1000:
						return "big"
					case key < 2000:
						return "small-" + strconv.Itoa((key-1000)/10)
					}
					return "new-" + strconv.Itoa(key)
				}
				var q queue
				switch k.name {
				case "FIFO":
					q = plainQueue{workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[int]{Group: groupOf})}
				case "rate-limiting":
					q = workqueue.NewTypedRateLimitingQueueWithConfig(limiter(), workqueue.TypedRateLimitingQueueConfig[int]{Group: groupOf})
				case "priority":
					q = workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[int]{RateLimiter: limiter(), Group: groupOf})
				}
				defer q.ShutDown()
				defer guard(t, k.name+" worker") // runs before the ShutDown
				queued := map[string]int{}
				add := func(key int) {
					q.Add(key)
					queued[groupOf(key)]++
				}
				for key := range 500 {
					add(key)
				}
				for i := range 3 {
					for g := range 4 {
						add(1000 + 10*g + i)
					}
				}
				type newcomer struct{ key, ahead, gets int }
				var waiting []*newcomer
				newKey := 2000
				for gets := 1; q.Len() > 0; gets++ {
					if gets%7 == 0 && newKey < 2030 {
						ahead := 0
						for _, n := range queued {
							if n > 0 {
								ahead++
							}
						}
						waiting = append(waiting, &newcomer{key: newKey, ahead: ahead})
						add(newKey)
						newKey++
					}
					key, _ := q.Get()
					queued[groupOf(key)]--
					q.Done(key)
					for i := 0; i < len(waiting); i++ {
						n := waiting[i]
						n.gets++
						if n.key == key {
							waiting = append(waiting[:i], waiting[i+1:]...)
							i--
							continue
						}
						if n.gets >= n.ahead+1 {
							t.Fatalf("[unfair] %s: key %d of a new group not handed out within %d Gets, with %d groups queued ahead of it",
								k.name, n.key, n.gets, n.ahead)
						}
					}
				}
				if len(waiting) > 0 || newKey != 2030 {
					t.Errorf("[lost-add] %s: %d new groups' items never handed out", k.name, len(waiting))
				}
			})
		})
	}
}

// TestShutdownHandsOutWhatTheLimitHeld fills a FIFO queue with 40 items of 2 groups under
// MaxPerGroup 1, lets 4 workers take 2 and hold them, and shuts the queue down: the other two
// workers must then receive every item left, 38, while the first two are still in processing
// ([shutdown-holds]). Workers still waiting at the end are called off through their context.
func TestShutdownHandsOutWhatTheLimitHeld(t *testing.T) {
	for _, k := range kinds {
		if !k.fifo {
			continue // a priority queue hands out nothing once shutting down
		}
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := k.build(options{groups: 2, limit: 1})
				defer guard(t, k.name)
				for key := range 40 {
					q.Add(key)
				}
				get := getter(q)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var taken atomic.Int64
				release := make(chan struct{})
				var wg sync.WaitGroup
				for range 4 {
					wg.Go(func() {
						defer guard(t, k.name+" worker")
						for {
							key, shutdown, err := get(ctx)
							if shutdown || err != nil {
								return
							}
							if taken.Add(1) <= 2 {
								<-release // the first two are held until the shutdown
							}
							q.Done(key)
						}
					})
				}
				synctest.Wait()
				if n := taken.Load(); n != 2 {
					t.Errorf("[group-limit] %s: %d items taken under MaxPerGroup 1 with 2 groups, want 2", k.name, n)
				}
				q.ShutDown()
				synctest.Wait()
				if n := taken.Load(); n != 40 {
					t.Errorf("[shutdown-holds] %s: after ShutDown, with 2 items still in processing, the workers took %d of 40 items", k.name, n)
				}
				close(release)
				cancel()
				wg.Wait()
			})
		})
	}
}

// TestGiveUpOncePerCycle adds 200 keys once, from 4 producers, to a queue with MaxRetries 2;
// 6 workers fail key k (k mod 5) times in a row, with AddRateLimited, then Forget it. Keys
// that fail 3 or 4 times must be given up on exactly once, at their third AddRateLimited, with
// attempts 3, in the goroutine of that call ([giveup]); no key may be handed out after it was
// given up on ([requeued-after-giveup]), and every other key must end with a success
// ([lost-add]).
func TestGiveUpOncePerCycle(t *testing.T) {
	for _, k := range kinds {
		if !k.retries {
			continue
		}
		for _, groups := range []int{0, 4} {
			t.Run(fmt.Sprintf("%s/groups=%d", k.name, groups), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { giveUpOncePerCycle(t, k, groups) })
			})
		}
	}
}

func giveUpOncePerCycle(t *testing.T, k kind, groups int) {
	const keys, producers, workers, maxRetries = 200, 4, 6, 2
	var (
		fails     = make([]atomic.Int64, keys) // AddRateLimited calls since the last Forget or give-up
		gaveUp    = make([]atomic.Int64, keys) // give-ups heard
		succeeded = make([]atomic.Bool, keys)
		caller    = make([]atomic.Int64, keys) // the worker in AddRateLimited of the key, plus 1
	)
	var q queue
	q = k.build(options{groups: groups, maxRetries: maxRetries, giveUp: func(key, attempts int) {
		if attempts != maxRetries+1 || fails[key].Load() != maxRetries+1 {
			t.Errorf("[giveup] %s: key %d given up on with attempts %d after %d AddRateLimited calls, want %d",
				k.name, key, attempts, fails[key].Load(), maxRetries+1)
		}
		if caller[key].Load() == 0 {
			t.Errorf("[giveup] %s: key %d given up on outside its AddRateLimited", k.name, key)
		}
		gaveUp[key].Add(1)
	}})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			defer guard(t, k.name+" worker")
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if gaveUp[key].Load() > 0 {
					t.Errorf("[requeued-after-giveup] %s: key %d handed out after it was given up on", k.name, key)
				}
				time.Sleep(time.Duration(5+w) * time.Microsecond)
				if fails[key].Load() < int64(key%5) {
					n := fails[key].Add(1)
					caller[key].Store(int64(w + 1))
					before := gaveUp[key].Load()
					q.AddRateLimited(key)
					caller[key].Store(0)
					if gave := gaveUp[key].Load() - before; gave != 0 && n <= maxRetries || gave != 1 && n > maxRetries {
						t.Errorf("[giveup] %s: key %d: AddRateLimited call %d since Forget gave up %d times, want %d",
							k.name, key, n, gave, map[bool]int{true: 1, false: 0}[n > maxRetries])
					}
				} else {
					succeeded[key].Store(true)
					fails[key].Store(0)
					q.Forget(key)
				}
				q.Done(key)
			}
		})
	}
	var adders sync.WaitGroup
	for p := range producers {
		adders.Go(func() {
			defer guard(t, k.name+" producer")
			for key := p; key < keys; key += producers {
				q.Add(key)
			}
		})
	}
	adders.Wait()
	time.Sleep(time.Second) // fake: every retry's delay has passed, and the workers wait in Get
	synctest.Wait()
	for key := range keys {
		want := int64(0)
		if key%5 > maxRetries {
			want = 1
		}
		if got := gaveUp[key].Load(); got != want {
			t.Errorf("[giveup] %s: key %d (fails %d times) given up on %d times, want %d", k.name, key, key%5, got, want)
		}
		if want == 0 && !succeeded[key].Load() {
			t.Errorf("[lost-add] %s: key %d (fails %d times) never succeeded", k.name, key, key%5)
		}
	}
	q.ShutDown()
	wg.Wait()
}
