package sharding

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Sharder is one replica's membership in the election of every bucket: it runs one client-go
// LeaderElector per bucket and tells the queues wrapped around it ([Wrap]) which buckets it
// holds. Create it with [New], wrap queues, and call Run. Its methods are safe for
// simultaneous use by multiple goroutines.
type Sharder struct {
	cfg     Config
	tenures []atomic.Pointer[tenure] // per bucket; nil when not held
	started atomic.Bool
	share   atomic.Int64    // the most buckets this replica acquires: see balance.go
	asked   []chan struct{} // per bucket: another replica asked for it (buffered, 1)

	seen []observation // per bucket: see lock.go; used by one term at a time

	mu      sync.Mutex // guards queues and the held count, and orders them with tenures
	queues  []member
	holding int

	watching sync.RWMutex    // guards watchers; read-held from a bucket's preparation to its tenure's start
	watchers []BucketWatcher // see watchers.go
}

// member is a queue wrapped around a Sharder.
type member interface {
	// acquired enqueues the keys of a bucket this replica has just acquired.
	acquired(bucket int)
	// resumed enqueues the keys of a bucket that the queue set aside while its tenure had
	// lapsed (its renewals were late) and that a renewal has extended since.
	resumed(bucket int)
	// ended drops the keys set aside of a bucket whose tenure has ended.
	ended(bucket int)
}

// New returns a Sharder configured by cfg. It panics with a "sharding:" message if cfg is
// invalid: see [Config].
func New(cfg Config) *Sharder {
	cfg = cfg.withDefaults()
	s := &Sharder{cfg: cfg, tenures: make([]atomic.Pointer[tenure], cfg.Buckets), asked: make([]chan struct{}, cfg.Buckets),
		seen: make([]observation, cfg.Buckets)}
	for b := range s.asked {
		s.asked[b] = make(chan struct{}, 1)
	}
	s.share.Store(int64(cfg.Buckets))
	return s
}

// Buckets returns the number of buckets, Config.Buckets.
func (s *Sharder) Buckets() int { return s.cfg.Buckets }

// Identity returns the replica's identity, Config.Identity.
func (s *Sharder) Identity() string { return s.cfg.Identity }

// Holds reports whether this replica holds bucket and has not begun to hand it over: its
// queues accept the bucket's keys. While the bucket's renewals are late (see the package
// documentation), the queues accept its keys but hand them out only once a renewal succeeds.
// It panics if bucket is out of range.
func (s *Sharder) Holds(bucket int) bool {
	t := s.tenures[bucket].Load()
	return t != nil && t.accepting()
}

// Held returns the buckets this replica holds, in increasing order. It is informational: by the
// time it returns, the set may have changed.
func (s *Sharder) Held() []int {
	var held []int
	for b := range s.tenures {
		if s.Holds(b) {
			held = append(held, b)
		}
	}
	return held
}

// Run campaigns for every bucket until ctx is done, then hands the held buckets back: it stops
// handing their keys out, waits for their reconciles to finish (up to LeaseDuration; see the
// package documentation for what follows if they do not), and releases their Leases, so that
// the other replicas take them over within about a second. It returns once every bucket is
// handed back. It panics if called more than once.
func (s *Sharder) Run(ctx context.Context) { s.run(ctx, context.Background()) }

// run is Run that also stops when halt is done, at once and as a crashed process would: it
// stops renewing without releasing and without waiting for reconciles. Tests use it.
func (s *Sharder) run(ctx, halt context.Context) {
	if !s.started.CompareAndSwap(false, true) {
		panic("sharding: Sharder.Run called twice")
	}
	// The balancer stops as soon as the replica starts leaving, or halts.
	balancing, stopBalancing := context.WithCancel(ctx)
	defer stopBalancing()
	unhalt := context.AfterFunc(halt, stopBalancing)
	defer unhalt()
	s.look(balancing, make(map[string]leaseView), make(map[string]time.Time)) // a first fair share
	var balancer, terms sync.WaitGroup
	balancer.Go(func() { s.balance(balancing) })
	for b := range s.cfg.Buckets {
		terms.Go(func() {
			for s.term(ctx, halt, b) {
			}
		})
	}
	terms.Wait()
	stopBalancing()
	balancer.Wait()
}

// attach adds q to the queues told of acquisitions, and tells it of the buckets held now.
func (s *Sharder) attach(q member) {
	s.mu.Lock()
	s.queues = append(s.queues, q)
	var held []int
	for b := range s.tenures {
		if t := s.tenures[b].Load(); t != nil && t.accepting() {
			held = append(held, b)
		}
	}
	s.mu.Unlock()
	for _, b := range held {
		q.acquired(b)
	}
}

// tenure returns the current tenure of bucket, or nil.
func (s *Sharder) tenure(bucket int) *tenure { return s.tenures[bucket].Load() }

// begin installs t as its bucket's tenure, so that the queues accept the bucket's keys, and
// then has every queue enqueue them. A key added after the install is accepted; a key added
// before it is among those the queues enqueue.
func (s *Sharder) begin(t *tenure) {
	s.mu.Lock()
	s.tenures[t.bucket].Store(t)
	s.holding++
	s.cfg.Metrics.BucketsHeld(s.holding)
	queues := append([]member(nil), s.queues...)
	s.mu.Unlock()
	for _, q := range queues {
		q.acquired(t.bucket)
	}
}

// finish removes t as its bucket's tenure and ends it: from now on the queues refuse the
// bucket's keys and hand none out, and drop those they had set aside. It returns the channel
// that is closed once the bucket's keys in processing are done.
func (s *Sharder) finish(t *tenure) <-chan struct{} {
	drained := t.end()
	s.mu.Lock()
	s.tenures[t.bucket].Store(nil)
	s.holding--
	s.cfg.Metrics.BucketsHeld(s.holding)
	queues := append([]member(nil), s.queues...)
	s.mu.Unlock()
	for _, q := range queues {
		q.ended(t.bucket)
	}
	return drained
}

// extended is called by l when a renewal has moved the end of its hold window: if l is the
// lock of its bucket's tenure, the queues hand out the keys they set aside while it had lapsed.
func (s *Sharder) extended(l *lock) {
	if t := s.tenures[l.bucket].Load(); t == nil || t.lock != l {
		return // acquiring: the tenure begins with the keys listed
	}
	s.mu.Lock()
	queues := append([]member(nil), s.queues...)
	s.mu.Unlock()
	for _, q := range queues {
		q.resumed(l.bucket)
	}
}
