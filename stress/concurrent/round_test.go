package concurrent

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// The shape of a round.
const (
	producers         = 32
	workers           = 32
	samplers          = 2
	sharedKeys        = 2000 // keys every producer adds, hot ones far more often than the rest
	hotKeys           = 16   // the keys half of all shared adds go to
	fifoKeysPerProd   = 16   // keys only one producer adds, once each, to check the order
	laterKeysPerProd  = 8    // keys only one producer adds, once each, with a delay, to check it
	callsPerProducer  = 200
	maxRequeues       = 3                // a worker fails an item only while it has failed fewer times
	quietAfter        = time.Minute      // longer than any delay or retry: once past, all is due
	shutdownBound     = 10 * time.Minute // the watchdog on ShutDown and ShutDownWithDrain
	maxViolationsKept = 10
)

// totalKeys is how many distinct keys a round uses: Len can never be more.
const totalKeys = sharedKeys + producers*(fifoKeysPerProd+laterKeysPerProd)

// fifoKey is the i-th key only producer p adds, at once.
func fifoKey(p, i int) int { return sharedKeys + p*fifoKeysPerProd + i }

// laterKey is the i-th key only producer p adds, with a delay.
func laterKey(p, i int) int { return sharedKeys + producers*fifoKeysPerProd + p*laterKeysPerProd + i }

// isOwnKey reports whether k is one of the keys a single producer adds once.
func isOwnKey(k int) bool { return k >= sharedKeys }

// plan is what a round does, drawn from its seed.
type plan struct {
	seed    uint64
	variant variant
	drain   bool // shut down with ShutDownWithDrain, not ShutDown
	// early: shut down while the producers are still adding, at shutAt on the bubble's clock
	// after the start; otherwise once every add and retry has been processed and all is quiet.
	early  bool
	shutAt time.Duration
}

// newPlan draws the plan of the round with the given seed; consecutive seeds cycle through
// the variants.
func newPlan(seed uint64) plan {
	r := rand.New(rand.NewPCG(seed, 1))
	return plan{
		seed:    seed,
		variant: variants[seed%uint64(len(variants))],
		drain:   r.IntN(2) == 0,
		early:   r.IntN(3) == 0,
		shutAt:  time.Duration(r.IntN(3000)) * time.Microsecond,
	}
}

func (p plan) String() string {
	when := "once quiet"
	if p.early {
		when = fmt.Sprintf("early, %v after the start", p.shutAt)
	}
	how := "ShutDown"
	if p.drain {
		how = "ShutDownWithDrain"
	}
	return fmt.Sprintf("%s queue, seed %d, %s %s", p.variant.name, p.seed, how, when)
}

// add is one call that adds a key: Add, AddAfter or AddRateLimited.
type add struct {
	key        int
	start, end int64 // stamps before the call and after it returned
	immediate  bool  // Add, or AddAfter with a delay of zero or less
	// For the AddAfter of a producer's own delayed key: the bubble's time before the call, and
	// the delay.
	at    time.Time
	delay time.Duration
}

// processing is one item handed out by Get and ended by Done.
type processing struct {
	key              int
	getStart, getEnd int64     // stamps before Get and after it returned the item
	gotAt            time.Time // the bubble's time once Get returned
	doneStart        int64     // stamp before Done
}

// shutdown is the round's call of ShutDown or ShutDownWithDrain.
type shutdown struct {
	drain      bool
	start, end int64
}

// round is one queue, the goroutines that use it, and the log of what they did. Each
// goroutine appends to a log of its own; the logs are read once all have finished.
type round struct {
	plan  plan
	q     queue
	clock atomic.Int64 // the stamps: every event takes the next number
	busy  []atomic.Bool

	adds        [producers + workers][]add
	fifoOrder   [producers][]add // each producer's adds of its own keys at once, in its order
	laterAdds   [producers][]add // each producer's AddAfter of its own delayed keys
	processings [workers][]processing
	shutdown    shutdown
	quietAt     int64 // stamp once all was processed, before the shutdown; 0 for an early one

	mu         sync.Mutex
	violations []string
}

// stamp returns the next stamp: a stamp taken after another returned is larger.
func (r *round) stamp() int64 { return r.clock.Add(1) }

// violate records a broken invariant.
func (r *round) violate(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.violations) < maxViolationsKept {
		r.violations = append(r.violations, fmt.Sprintf(format, args...))
	}
}

// run plays the round in a synctest bubble: time passes on the bubble's clock, only when every
// goroutine is blocked, so delays and retries fall due between bursts of calls.
func (r *round) run(t *testing.T) {
	synctest.Test(t, func(*testing.T) {
		before := goleak.IgnoreCurrent()
		r.q = r.plan.variant.build()
		r.busy = make([]atomic.Bool, totalKeys)
		var working, producing, sampling sync.WaitGroup
		stop := make(chan struct{})
		for w := range workers {
			working.Go(func() { r.work(w) })
		}
		for range samplers {
			sampling.Go(func() { r.sample(stop) })
		}
		for p := range producers {
			producing.Go(func() { r.produce(p) })
		}
		stopSampling := sync.OnceFunc(func() {
			close(stop)
			sampling.Wait()
		})
		if r.plan.early {
			time.Sleep(r.plan.shutAt)
			r.shutDown()
			producing.Wait()
		} else {
			producing.Wait()
			stopSampling() // samplers would wake all through the quiet minute
			r.settle()
			r.shutDown()
		}
		working.Wait()
		stopSampling()
		if err := goleak.Find(before); err != nil {
			r.violate("[leak] goroutines left once ShutDown returned and every caller finished: %v", err)
		}
	})
}

// settle lets every delay and retry fall due and be processed, then checks that nothing waits.
func (r *round) settle() {
	time.Sleep(quietAfter)
	synctest.Wait()
	r.quietAt = r.stamp()
	if n := r.q.plain.Len(); n != 0 {
		r.violate("[not-empty] Len() = %d once every add was processed", n)
	}
	if d := r.q.depth; d != nil && d.n.Load() != 0 {
		r.violate("[depth] the depth metric is %d once every add was processed", d.n.Load())
	}
}

// shutDown makes the round's shutdown call, under a watchdog on the bubble's clock.
func (r *round) shutDown() {
	r.shutdown = shutdown{drain: r.plan.drain, start: r.stamp()}
	returned := make(chan int64, 1)
	go func() {
		if r.plan.drain {
			r.q.plain.ShutDownWithDrain()
		} else {
			r.q.plain.ShutDown()
		}
		returned <- r.stamp()
	}()
	select {
	case r.shutdown.end = <-returned:
	case <-time.After(shutdownBound):
		r.violate("[watchdog] %s did not return within %v", r.plan, shutdownBound)
		r.q.plain.ShutDown() // releases a drain that waits in vain, so the round can end
		r.shutdown.end = <-returned
	}
}
