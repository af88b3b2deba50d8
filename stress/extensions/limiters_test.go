package extensions

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/limiter"
)

// The shape of a bounded-limiter round: far more keys fail than a limiter may remember.
const (
	limiterProducers = 6
	limiterCalls     = 250 // Adds per producer, one every 0 to 3 steps
	limiterKeys      = 400 // keys 1 to limiterKeys
	limiterWorkers   = 8
	limiterStep      = 10 * time.Microsecond
	limiterQuiet     = 100 * time.Millisecond // longer than any wait: once past, every retry has run
	// Out of 10 processings of a key: failFor fail (AddRateLimited), forgetFor succeed
	// (Forget), the others are abandoned (Done alone), so that only the limiter's memory
	// bounds forgets them.
	failFor, forgetFor = 5, 3

	baseWait, longestWait = 20 * time.Microsecond, 640 * time.Microsecond // exponential
	fastWait, slowWait    = 20 * time.Microsecond, 500 * time.Microsecond // fast-slow
	fastAttempts          = 3
	jitterFactor          = 0.5
)

// boundedLimiter is what the limiters under test have: client-go's methods, the instant of a
// failure, and how many items they remember.
type boundedLimiter interface {
	workqueue.TypedRateLimiter[int]
	WhenAt(item int, now time.Time) time.Duration
	Tracked() int
}

// policy is a limiter under test: how to build it with memory options, and the wait its
// documentation gives a failure that follows earlier ones it remembers, before any jitter,
// which may shorten it by less than the factor jitter.
type policy struct {
	name   string
	build  func(opts ...limiter.Option) boundedLimiter
	wait   func(earlier int) time.Duration
	jitter float64
}

var policies = []policy{
	{"exponential", func(opts ...limiter.Option) boundedLimiter {
		return workqueue.NewTypedItemExponentialFailureRateLimiterWithOptions[int](baseWait, longestWait, opts...)
	}, exponentialWait, 0},
	{"jittered exponential", func(opts ...limiter.Option) boundedLimiter {
		return workqueue.NewTypedJitteredExponentialFailureRateLimiter[int](baseWait, longestWait, jitterFactor, opts...)
	}, exponentialWait, jitterFactor},
	{"jittered fast-slow", func(opts ...limiter.Option) boundedLimiter {
		return workqueue.NewTypedItemFastSlowRateLimiterWithOptions[int](fastWait, slowWait, fastAttempts,
			append(opts, limiter.JitterFactor(jitterFactor))...)
	}, fastSlowWait, jitterFactor},
}

// exponentialWait is baseWait doubled for each earlier failure, up to longestWait.
func exponentialWait(earlier int) time.Duration {
	w := baseWait
	for range earlier {
		if w >= longestWait {
			break
		}
		w *= 2
	}
	return min(w, longestWait)
}

// fastSlowWait is fastWait for the first fastAttempts failures, slowWait afterwards.
func fastSlowWait(earlier int) time.Duration {
	if earlier < fastAttempts {
		return fastWait
	}
	return slowWait
}

// memory is how much a limiter under test remembers: at most maxTracked items (0: no cap),
// each until forgetAfter has passed since its last failure (0: until Forget).
type memory struct {
	maxTracked  int
	forgetAfter time.Duration
}

var memories = []memory{
	{maxTracked: 32},
	{forgetAfter: time.Millisecond},
	{maxTracked: 48, forgetAfter: 2 * time.Millisecond},
}

func (m memory) options() []limiter.Option {
	return []limiter.Option{limiter.MaxTracked(m.maxTracked), limiter.ForgetAfter(m.forgetAfter)}
}

func (m memory) String() string {
	return fmt.Sprintf("MaxTracked(%d), ForgetAfter(%v)", m.maxTracked, m.forgetAfter)
}

// TestBoundedLimiters runs a rate-limiting queue whose limiter remembers few items while
// producers add hundreds of keys and workers fail, forget or abandon them. In watched rounds
// the queue's limiter is a spy around the limiter under test, called as the queue calls it
// (in order, by one goroutine at a time): it checks every answer against a model of the
// documentation (the count of earlier failures, expired after ForgetAfter, the least recently
// failed item dropped beyond MaxTracked; the wait that count gives, shortened by less than
// the jitter factor), and that Tracked is the model's count, never above the cap. In bare
// rounds the queue calls the limiter itself, on the path where callers do not wait for the
// owner; at the end Tracked must be within the cap, the limiter may only count failures that
// happened since the last Forget and within ForgetAfter of the last failure, and, during the
// round, NumRequeues through the queue never counts more failures of a key than its workers
// made. Consecutive rounds cycle through every policy, memory and way of watching.
func TestBoundedLimiters(t *testing.T) {
	var total limiterCounts
	combos := len(policies) * len(memories) * 2
	playRounds(t, "TestBoundedLimiters", 2*combos, func(t *testing.T, seed uint64) (string, *findings) {
		l := newLimiterRound(seed)
		synctest.Test(t, func(*testing.T) { l.run() })
		total.add(&l.counts)
		return l.String(), &l.found
	})
	t.Logf("%d rounds: %d failures, %d Forgets; in watched rounds the model dropped %d items beyond the cap and "+
		"expired %d, and the limiters tracked at most %d items",
		total.rounds, total.failures.Load(), total.forgets.Load(), total.evicted, total.expired, total.most)
}

// limiterCounts are the figures of the rounds.
type limiterCounts struct {
	rounds, evicted, expired, most int
	failures, forgets              atomic.Int64
}

func (c *limiterCounts) add(o *limiterCounts) {
	c.rounds++
	c.evicted += o.evicted
	c.expired += o.expired
	c.most = max(c.most, o.most)
	c.failures.Add(o.failures.Load())
	c.forgets.Add(o.forgets.Load())
}

// limiterRound is one round of TestBoundedLimiters.
type limiterRound struct {
	seed    uint64
	policy  policy
	memory  memory
	watched bool

	limiter boundedLimiter // the limiter under test
	spy     *spy           // nil in a bare round
	q       workqueue.TypedRateLimitingInterface[int]
	start   time.Time
	keys    [limiterKeys + 1]failureLog
	latest  atomic.Int64 // the latest failure, in nanoseconds after the start
	counts  limiterCounts
	found   findings
}

// failureLog is what the workers did to one key. Only the worker processing the key changes
// it, and the queue hands the key to one worker at a time.
type failureLog struct {
	sinceForget atomic.Int64 // failures since the last Forget
	last        atomic.Int64 // the latest failure, in nanoseconds after the start
}

func newLimiterRound(seed uint64) *limiterRound {
	combo := int(seed % uint64(len(policies)*len(memories)*2))
	return &limiterRound{
		seed:    seed,
		policy:  policies[combo%len(policies)],
		memory:  memories[combo/len(policies)%len(memories)],
		watched: combo/(len(policies)*len(memories)) == 0,
	}
}

func (l *limiterRound) String() string {
	how := "bare"
	if l.watched {
		how = "watched"
	}
	return fmt.Sprintf("%s %s limiter, %v", how, l.policy.name, l.memory)
}

// run plays the round in a synctest bubble.
func (l *limiterRound) run() {
	l.start = time.Now()
	l.limiter = l.policy.build(l.memory.options()...)
	var queued workqueue.TypedRateLimiter[int] = l.limiter
	if l.watched {
		l.spy = newSpy(l.limiter, l.policy, l.memory, &l.found)
		queued = l.spy
	}
	l.q = workqueue.NewTypedRateLimitingQueue(queued)
	var producing, working sync.WaitGroup
	for p := range limiterProducers {
		producing.Go(func() { l.produce(rand.New(rand.NewPCG(l.seed, uint64(1+p)))) })
	}
	for w := range limiterWorkers {
		working.Go(func() { l.work(rand.New(rand.NewPCG(l.seed, uint64(1<<10+w)))) })
	}
	producing.Wait()
	time.Sleep(limiterQuiet)
	synctest.Wait()
	l.q.ShutDown()
	working.Wait()
	if l.spy != nil {
		l.counts.evicted, l.counts.expired, l.counts.most = l.spy.model.evicted, l.spy.model.expired, l.spy.most
	} else {
		l.checkRemembered()
	}
}

// produce adds keys at random, pausing 0 to 3 steps before each.
func (l *limiterRound) produce(r *rand.Rand) {
	for range limiterCalls {
		time.Sleep(limiterStep * time.Duration(r.IntN(4)))
		l.q.Add(1 + r.IntN(limiterKeys))
	}
}

// work processes keys until the queue shuts down: it fails, forgets or abandons each.
func (l *limiterRound) work(r *rand.Rand) {
	for {
		key, shutdown := l.q.Get()
		if shutdown {
			return
		}
		k := &l.keys[key]
		if n, made := l.q.NumRequeues(key), k.sinceForget.Load(); int64(n) > made {
			l.found.add("[requeues] NumRequeues(%d) is %d, and its workers made %d failures since its last Forget", key, n, made)
		}
		switch x := r.IntN(10); {
		case x < failFor:
			at := time.Since(l.start).Nanoseconds()
			k.sinceForget.Add(1)
			k.last.Store(at)
			raise(&l.latest, at)
			l.counts.failures.Add(1)
			l.q.AddRateLimited(key)
		case x < failFor+forgetFor:
			k.sinceForget.Store(0)
			l.counts.forgets.Add(1)
			l.q.Forget(key)
		}
		l.q.Done(key)
	}
}

// checkRemembered checks, once the queue has shut down and the workers have gone, what a bare
// limiter remembers: at most its cap, only keys that failed since their last Forget, none
// whose last failure came more than ForgetAfter before the round's last one, and as many
// keys as NumRequeues counts.
func (l *limiterRound) checkRemembered() {
	tracked, counted := l.limiter.Tracked(), 0
	l.counts.most = tracked
	if m := l.memory.maxTracked; m > 0 && tracked > m {
		l.found.add("[cap] the limiter tracks %d items, above MaxTracked(%d)", tracked, m)
	}
	latest := time.Duration(l.latest.Load())
	for key := 1; key <= limiterKeys; key++ {
		n := l.limiter.NumRequeues(key)
		if n == 0 {
			continue
		}
		counted++
		k := &l.keys[key]
		if made := k.sinceForget.Load(); int64(n) > made {
			l.found.add("[requeues] NumRequeues(%d) is %d at the end, and its workers made %d failures since its last Forget", key, n, made)
		}
		if idle := latest - time.Duration(k.last.Load()); l.memory.forgetAfter > 0 && idle > l.memory.forgetAfter {
			l.found.add("[forget-after] key %d is still counted (%d failures), %v after its last failure, with %v",
				key, n, idle, l.memory)
		}
	}
	if counted != tracked {
		l.found.add("[tracked] the limiter tracks %d items, and NumRequeues counts failures of %d", tracked, counted)
	}
}

// spy is the rate limiter of a watched round: it passes each call on to the limiter under test
// and checks the answer against a model of the limiter's documentation. Being of another
// package, it is called in the queue's callers' goroutines, several at a time, as client-go
// calls every limiter; so it locks, to check each call against the model alone.
type spy struct {
	mu     sync.Mutex
	inner  boundedLimiter
	policy policy
	memory memory
	model  *memoryModel
	found  *findings
	most   int // the most items the limiter tracked
}

var _ limiter.Timed[int] = (*spy)(nil)

func newSpy(inner boundedLimiter, p policy, m memory, found *findings) *spy {
	return &spy{inner: inner, policy: p, memory: m, model: newMemoryModel(m), found: found}
}

// When is WhenAt now: the queue calls WhenAt with its clock.
func (s *spy) When(item int) time.Duration { return s.WhenAt(item, time.Now()) }

// WhenAt records a failure of item at now with the limiter and the model, and checks the
// limiter's wait and memory.
func (s *spy) WhenAt(item int, now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	earlier := s.model.fail(item, now)
	got := s.inner.WhenAt(item, now)
	w := s.policy.wait(earlier)
	cut := w - got
	if cut < 0 || cut > 0 && float64(cut) >= s.policy.jitter*float64(w) {
		s.found.add("[wait] failure %d of key %d waits %v; documented: %v, shortened by less than %v of it",
			earlier+1, item, got, w, s.policy.jitter)
	}
	s.check("a failure", item)
	return got
}

// Forget forgets item in the limiter and the model, and checks the limiter's memory.
func (s *spy) Forget(item int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inner.Forget(item)
	s.model.forget(item)
	s.check("Forget", item)
}

// NumRequeues returns the limiter's count for item, after checking it.
func (s *spy) NumRequeues(item int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.numRequeues(item)
}

// numRequeues is NumRequeues with s.mu held.
func (s *spy) numRequeues(item int) int {
	n := s.inner.NumRequeues(item)
	if want := s.model.count(item); n != want {
		s.found.add("[requeues] NumRequeues(%d) is %d, documented: %d", item, n, want)
	}
	return n
}

// check checks, after a call about item, how many items the limiter tracks and what it
// counts for item.
func (s *spy) check(call string, item int) {
	tracked := s.inner.Tracked()
	s.most = max(s.most, tracked)
	if want := s.model.len(); tracked != want {
		s.found.add("[tracked] after %s of key %d the limiter tracks %d items, documented: %d", call, item, tracked, want)
	}
	if m := s.memory.maxTracked; m > 0 && tracked > m {
		s.found.add("[cap] after %s of key %d the limiter tracks %d items, above MaxTracked(%d)", call, item, tracked, m)
	}
	s.numRequeues(item)
}

// memoryModel is what the documentation says a bounded limiter remembers. Its time is the
// latest instant it was given. A failure first forgets every item whose last failure is more
// than forgetAfter before now (unless forgetAfter is 0); a failure of an item not remembered,
// with maxTracked items remembered (unless maxTracked is 0), then forgets the least recently
// failed one.
type memoryModel struct {
	memory
	now     time.Time
	entries map[int]*modelEntry
	order   int64 // failures so far: the order of the latest failure of each entry
	// How many items were forgotten beyond the cap, and how many expired.
	evicted, expired int
}

// modelEntry is a remembered item: its failures, and when and in which order the latest came.
type modelEntry struct {
	count int
	last  time.Time
	order int64
}

func newMemoryModel(m memory) *memoryModel {
	return &memoryModel{memory: m, entries: make(map[int]*modelEntry)}
}

// fail records a failure of item at the instant at and returns how many earlier failures of
// it are remembered.
func (m *memoryModel) fail(item int, at time.Time) (earlier int) {
	if at.After(m.now) {
		m.now = at
	}
	if m.forgetAfter > 0 {
		for key, e := range m.entries {
			if m.now.Sub(e.last) > m.forgetAfter {
				delete(m.entries, key)
				m.expired++
			}
		}
	}
	e, ok := m.entries[item]
	if !ok {
		if m.maxTracked > 0 && len(m.entries) >= m.maxTracked {
			delete(m.entries, m.leastRecent())
			m.evicted++
		}
		e = &modelEntry{}
		m.entries[item] = e
	}
	earlier = e.count
	m.order++
	e.count, e.last, e.order = e.count+1, m.now, m.order
	return earlier
}

// leastRecent returns the remembered item whose latest failure came first.
func (m *memoryModel) leastRecent() int {
	oldest, first := 0, int64(0)
	for key, e := range m.entries {
		if first == 0 || e.order < first {
			oldest, first = key, e.order
		}
	}
	return oldest
}

func (m *memoryModel) forget(item int) { delete(m.entries, item) }
func (m *memoryModel) len() int        { return len(m.entries) }

// count returns how many failures of item are remembered.
func (m *memoryModel) count(item int) int {
	if e, ok := m.entries[item]; ok {
		return e.count
	}
	return 0
}
