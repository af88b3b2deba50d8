package sharding

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/sharding/internal/timing"
)

// Sharder is one replica's membership in the election of every bucket: it runs one client-go
// LeaderElector per bucket and tells the queues wrapped around it ([Wrap]) which buckets it
// holds. Create it with [New], wrap queues, and call Run. Its methods are safe for
// simultaneous use by multiple goroutines.
type Sharder struct {
	cfg     Config
	times   timing.Durations
	started atomic.Bool
	share   atomic.Int64    // the most buckets this replica acquires: see balance.go
	asked   []chan struct{} // per bucket: another replica asked for it (buffered, 1)

	// Per bucket. holds[b] belongs to the goroutine of the elector of b's running campaign
	// (campaigns run one after another); tenures[b] publishes its current tenure to the
	// queues; holdings[b] is the campaign's holding while b is held, nil otherwise.
	holds    []timing.Hold
	tenures  []atomic.Pointer[timing.Tenure]
	holdings []atomic.Pointer[holding]

	mu     sync.Mutex // guards queues, held and claimed, and orders them with holdings
	queues []member
	held   int // buckets held: holdings not nil
	// claimed[b]: b's campaign has acquired b, or is writing to, and has not given it up:
	// what the fair share limits (bucketLease.claim).
	claimed []bool

	watching sync.RWMutex    // guards watchers; read-held from a bucket's preparation to its holding's start
	watchers []BucketWatcher // see watchers.go
}

// member is a queue wrapped around a Sharder.
type member interface {
	// acquired enqueues the keys of a bucket this replica has just acquired.
	acquired(bucket int)
	// resumed enqueues the keys of a bucket that the queue set aside while its tenure had
	// lapsed (its renewals were late), once a renewal has moved the keys' end on or a new
	// tenure has begun.
	resumed(bucket int)
	// ended drops the keys set aside of a bucket given up.
	ended(bucket int)
}

// New returns a Sharder configured by cfg. It panics with a "sharding:" message if cfg is
// invalid: see [Config].
func New(cfg Config) *Sharder {
	cfg = cfg.withDefaults()
	s := &Sharder{cfg: cfg, times: cfg.durations(), asked: make([]chan struct{}, cfg.Buckets),
		holds: make([]timing.Hold, cfg.Buckets), tenures: make([]atomic.Pointer[timing.Tenure], cfg.Buckets),
		holdings: make([]atomic.Pointer[holding], cfg.Buckets), claimed: make([]bool, cfg.Buckets)}
	for b := range s.asked {
		s.asked[b] = make(chan struct{}, 1)
		s.holds[b] = timing.NewHold(s.times)
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
	h := s.holdings[bucket].Load()
	return h != nil && h.accepting()
}

// Held returns the buckets this replica holds, in increasing order. It is informational: by the
// time it returns, the set may have changed.
func (s *Sharder) Held() []int {
	var held []int
	for b := range s.holdings {
		if s.Holds(b) {
			held = append(held, b)
		}
	}
	return held
}

// Run announces the replica to the others (a member Lease, deleted when Run returns),
// waits one RetryPeriod so that the replicas starting with it are counted, then campaigns
// for every bucket until ctx is done, and then hands the held buckets back: it stops
// handing their keys out, waits for their reconciles to finish (up to LeaseDuration; see the
// package documentation for what follows if they do not), and releases their Leases, so that
// the other replicas take them over within about a second. It returns once every bucket is
// handed back. It panics if called more than once.
//
// The electors and the balancer log to ctx's logger (klog.FromContext). What client-go's
// elector logs as an error but a healthy election does all the time (two replicas racing to
// create or write a Lease, a request cut short as a hand-over stops the elector) goes to
// verbosity 4 instead; every other failure stays an error.
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
	census, p := s.newCensus(), &presence{s: s, name: memberLeaseName(s.cfg.Name, s.cfg.Identity)}
	s.arrive(balancing, census, p) // a first fair share, among the replicas starting with this one
	var balancer, campaigns sync.WaitGroup
	balancer.Go(func() { s.balance(balancing, census, p) })
	for b := range s.cfg.Buckets {
		campaigns.Go(func() {
			for s.campaign(ctx, halt, b) {
			}
		})
	}
	campaigns.Wait()
	stopBalancing()
	balancer.Wait()
	if halt.Err() == nil {
		leaving, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.RenewDeadline)
		defer cancel()
		if err := p.withdraw(leaving); err != nil {
			s.failed(ctx, "withdraw", s.cfg.Namespace+"/"+p.name, err) // it expires instead
		}
	}
}

// attach adds q to the queues told of acquisitions, and tells it of the buckets held now.
func (s *Sharder) attach(q member) {
	s.mu.Lock()
	s.queues = append(s.queues, q)
	var held []int
	for b := range s.holdings {
		if h := s.holdings[b].Load(); h != nil && h.accepting() {
			held = append(held, b)
		}
	}
	s.mu.Unlock()
	for _, b := range held {
		q.acquired(b)
	}
}

// members returns the queues wrapped around s.
func (s *Sharder) members() []member {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]member(nil), s.queues...)
}

// holding returns the holding of bucket, or nil when it is not held.
func (s *Sharder) holding(bucket int) *holding { return s.holdings[bucket].Load() }

// unclaim stops counting bucket among those this replica acquires (see bucketLease.claim).
func (s *Sharder) unclaim(bucket int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claimed[bucket] = false
}

// A bucket becomes held in acquired and stops being held in givingUp; gaveUp reports it given
// up once its reconciles are done (or its hold window has closed). These three are the
// sharder's notion of a bucket acquired and given up: everything else about the bucket's time
// (tenures, lapses) happens while it is held.

// acquired installs h as its bucket's holding, so that the queues accept the bucket's keys,
// and then has every queue enqueue them. A key added after the install is accepted; a key
// added before it is among those the queues enqueue.
func (s *Sharder) acquired(h *holding) {
	s.mu.Lock()
	s.holdings[h.bucket].Store(h)
	s.held++
	s.cfg.Metrics.BucketsHeld(s.held)
	s.mu.Unlock()
	for _, q := range s.members() {
		q.acquired(h.bucket)
	}
}

// givingUp removes h as its bucket's holding and ends it: from now on the queues refuse the
// bucket's keys and hand none out, and drop those they had set aside. It returns the channel
// that is closed once the bucket's keys in processing are done.
func (s *Sharder) givingUp(h *holding) <-chan struct{} {
	drained := h.end()
	s.mu.Lock()
	s.holdings[h.bucket].Store(nil)
	s.held--
	s.claimed[h.bucket] = false
	s.cfg.Metrics.BucketsHeld(s.held)
	s.mu.Unlock()
	for _, q := range s.members() {
		q.ended(h.bucket)
	}
	return drained
}

// gaveUp reports a bucket given up, once its reconciles are done or its hold window closed.
func (s *Sharder) gaveUp(ho Handover) { s.cfg.Metrics.HandedOver(ho) }

// renewed is called by the bucket's Lease, in its elector's goroutine, when a write naming
// this replica has succeeded at now, leaving the tenure t (see package timing). It publishes
// t; and if the bucket is held by this campaign already, a new tenure fences the items of the
// one before for good (their contexts end, Held and Fence say no), which is reported if it had
// opened; and once the keys' end lies ahead, the queues hand out the keys they set aside.
func (s *Sharder) renewed(l *bucketLease, t timing.Tenure, change timing.Change, now time.Time) {
	old := s.tenures[l.bucket].Swap(&t)
	h := s.holdings[l.bucket].Load()
	if h == nil || h.lease != l {
		return // acquiring: the holding begins with the keys listed
	}
	if change != timing.Extended {
		overran := h.interrupt(t)
		if change == timing.Interrupted {
			closed := time.Duration(0)
			if old != nil && now.After(old.Until) {
				closed = now.Sub(old.Until)
			}
			s.cfg.Metrics.HandedOver(Handover{Bucket: l.bucket, Cause: Interrupted, Drain: closed, Overran: overran})
		}
	}
	if !t.Lapsed(now) {
		for _, q := range s.members() {
			q.resumed(l.bucket)
		}
	}
}
