package limiter

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Option configures an [Exponential] or a [FastSlow] limiter: how long and how many failed
// items it remembers, and how it jitters its waits. Pass options to [NewExponential] or
// [NewFastSlow]; later options override earlier ones. An Option is a value and may be reused.
type Option interface{ apply(*options) }

// optionFunc adapts a function to [Option].
type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// idleSlack is how much longer than its longest wait a limiter remembers an item by default:
// the time an item may spend waiting in its queue and being processed before it fails again.
const idleSlack = time.Hour

// options are the settings of a failure-counting limiter.
type options struct {
	forgetAfter time.Duration // zero: never
	maxTracked  int           // zero: no cap
	jitter      spread
}

// newOptions returns the defaults for a limiter whose longest wait is longestWait, with opts
// applied over them; name, such as "exponential rate limiter", goes into panic messages. By
// default, an item is forgotten longestWait + [idleSlack] after its last failure (saturated
// at the largest Duration), nothing caps how many items are tracked, and waits are not
// jittered.
func newOptions(name string, longestWait time.Duration, opts []Option) options {
	o := options{forgetAfter: longestWait + idleSlack}
	if o.forgetAfter < longestWait {
		o.forgetAfter = math.MaxInt64
	}
	for i, opt := range opts {
		if isNil(opt) {
			panic(fmt.Sprintf("workqueue: %s: option %d is nil", name, i))
		}
		opt.apply(&o)
	}
	return o
}

// ForgetAfter makes a limiter forget an item once d has passed since its last failure, as if
// Forget had been called: its next failure counts as its first. Time is the limiter's own: the
// latest instant it has been asked at (When asks at time.Now(); a queue asks at its clock's
// time). The first failure of any item more than d after an item's last one forgets it, so
// memory stays bounded by the number of distinct items that fail within a span of d.
//
// The default is the limiter's longest wait plus one hour. An item retried with AddRateLimited
// fails again after its wait plus the time it spends queued and being processed; unless that
// takes more than an hour, it keeps its count, so waits and NumRequeues differ from
// client-go's only for items abandoned without Forget.
// Choose d longer than the longest wait, including what other limiters combined with this one
// add (a token bucket in a [MaxOf] under a storm of failures), plus the longest time from a
// retry to the next failure, or a retried item starts its backoff again. Zero never forgets,
// as client-go does. It panics if d is negative.
func ForgetAfter(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("workqueue: ForgetAfter: negative duration %v", d))
	}
	return optionFunc(func(o *options) { o.forgetAfter = d })
}

// MaxTracked caps the number of items a limiter remembers at n: when a new item fails and n
// are tracked, the least recently failed one is forgotten first. Zero, the default, sets no
// cap. A cap smaller than the number of items failing at the same time resets the backoff of
// items that are still being retried, so choose it well above that. It panics if n is
// negative.
func MaxTracked(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("workqueue: MaxTracked: negative count %d", n))
	}
	return optionFunc(func(o *options) { o.maxTracked = n })
}

// JitterFactor makes a limiter shorten each wait by a random fraction of it, between zero and
// factor, so that items that failed together are not all retried together. A wait w becomes
// a value in (w - factor·w, w]: never negative, never longer than without jitter, and so never
// above the limiter's maximum. factor must be between 0 and 1: 0, the default, is no jitter, 1
// spreads waits over (0, w] ("full jitter"), 0.5 over (w/2, w] ("equal jitter"). It panics
// otherwise.
func JitterFactor(factor float64) Option {
	if !(factor >= 0 && factor <= 1) { // also refuses NaN
		panic(fmt.Sprintf("workqueue: JitterFactor: factor %v is not between 0 and 1", factor))
	}
	return optionFunc(func(o *options) { o.jitter.factor = factor })
}

// RandomSource makes a limiter draw its jitter from src instead of math/rand/v2's global
// source, so that tests can make it deterministic. Every draw from src holds a lock of the
// option's own, so the limiters built with one RandomSource option may share src and be used
// at the same time; src must not be drawn from elsewhere meanwhile. A limiter with a source of
// its own is not [Safe], since src is code from outside this package. It panics if src is nil.
func RandomSource(src rand.Source) Option {
	if isNil(src) {
		panic("workqueue: RandomSource: nil source")
	}
	random := rand.New(&lockedSource{src: src})
	return optionFunc(func(o *options) { o.jitter.random = random })
}

// lockedSource is a rand.Source that draws from src under a lock.
type lockedSource struct {
	mu  sync.Mutex
	src rand.Source
}

func (s *lockedSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}
