package fuzz

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"time"
)

// refTracker is an exponential or fast-slow limiter with the options of package limiter, as
// their documentation describes them, written without looking at how they are implemented.
// Instants are durations since an origin.
//
//   - ForgetAfter(d): the limiter's time is the latest instant it has been asked at. Each
//     failure first forgets every item whose last failure, on that time, is more than d
//     before it; zero forgets nothing. The default d is the longest wait plus one hour: maxDelay
//     for an exponential limiter, the longer delay for a fast-slow one. A d beyond the largest
//     Duration is never reached here, since instants stay within one Duration of the origin.
//   - MaxTracked(n): a failure of an item not tracked while n are tracked forgets the least
//     recently failed one first, after the expired ones are gone (they are no longer tracked).
//     Failures at the same instant are ordered as they were made. Zero sets no cap.
//   - The wait of an item's (n+1)th remembered failure is client-go's: base·2ⁿ capped at the
//     maximum, or fast for the first maxFastAttempts failures and slow after.
//   - JitterFactor(f) cuts a wait w by r·f·w, where r is a draw in [0, 1); later options
//     override earlier ones, and the jittered constructor's jitter comes before its options.
//     With RandomSource(src), r is rand.New(src).Float64(), one draw for each failure, as
//     the Example of NewTypedJitteredExponentialFailureRateLimiter shows.
type refTracker struct {
	wait    func(count int) time.Duration // the wait of an item's count-th failure, before jitter
	longest time.Duration                 // the longest wait: maxDelay, or the longer delay
	window  time.Duration                 // ForgetAfter; zero: never
	cap     int                           // MaxTracked; zero: none
	factor  float64                       // JitterFactor
	draws   *rand.Rand                    // nil: the global source, whose draws are unknown
	now     time.Duration                 // the latest instant asked at
	items   map[int]refFailures
	ordinal int // how many failures were recorded, to order them
}

// refFailures are the remembered failures of one item.
type refFailures struct {
	count   int
	last    time.Duration // the limiter's time at the last one
	ordinal int           // the last one's place among all failures
}

// refDraw is the jitter of one wait: factor f and, when known, the draw r.
type refDraw struct {
	factor float64
	r      float64
	known  bool
}

func (d refDraw) String() string {
	switch {
	case d.factor == 0:
		return "no jitter"
	case d.known:
		return fmt.Sprintf("jitter factor %v, draw %v", d.factor, d.r)
	}
	return fmt.Sprintf("jitter factor %v, a draw of the global source", d.factor)
}

// newRefTracker returns the reference for s, which must be valid.
func newRefTracker(s trackerSpec) *refTracker {
	r := &refTracker{items: make(map[int]refFailures), longest: s.b}
	if s.exponential() {
		r.wait = func(count int) time.Duration { return clientGoExponential(s.a, s.b, count-1) }
	} else {
		r.longest = max(s.a, s.b)
		r.wait = func(count int) time.Duration {
			if count <= s.fastTries {
				return s.a
			}
			return s.b
		}
	}
	r.window = r.longest + time.Hour
	if r.window < r.longest {
		r.window = math.MaxInt64 // the sum overflowed: saturated, so never reached
	}
	if s.ctor == rootJittered {
		r.factor = s.jitter
	}
	for _, o := range s.opts {
		switch o.kind {
		case forgetAfterOption:
			r.window = o.d
		case maxTrackedOption:
			r.cap = o.n
		case jitterOption:
			r.factor = o.factor
		case sourceOption:
			r.draws = rand.New(&cycle{values: o.draws})
		}
	}
	return r
}

// fail records a failure of item at the instant at, and returns its wait before jitter and
// the jitter to apply.
func (r *refTracker) fail(item int, at time.Duration) (time.Duration, refDraw) {
	r.now = max(r.now, at)
	for other, f := range r.items {
		if r.window > 0 && r.now-f.last > r.window {
			delete(r.items, other)
		}
	}
	f, tracked := r.items[item]
	if !tracked && r.cap > 0 && len(r.items) >= r.cap {
		delete(r.items, r.leastRecent())
	}
	r.ordinal++
	f = refFailures{count: f.count + 1, last: r.now, ordinal: r.ordinal}
	r.items[item] = f
	draw := refDraw{factor: r.factor}
	if r.factor > 0 && r.draws != nil {
		draw.r, draw.known = r.draws.Float64(), true
	}
	return r.wait(f.count), draw
}

// leastRecent returns the item that failed least recently.
func (r *refTracker) leastRecent() int {
	oldest, first := 0, math.MaxInt
	for item, f := range r.items {
		if f.ordinal < first {
			oldest, first = item, f.ordinal
		}
	}
	return oldest
}

func (r *refTracker) forget(item int)       { delete(r.items, item) }
func (r *refTracker) requeues(item int) int { return r.items[item].count }
func (r *refTracker) tracked() int          { return len(r.items) }

// lastFailure returns the instant of item's last remembered failure.
func (r *refTracker) lastFailure(item int) (time.Duration, bool) {
	f, ok := r.items[item]
	return f.last, ok
}

// jitterProblem checks the jittered wait got of a wait w. Always: got is in
// (w - f·w, w], or w itself when f or w is zero. When the draw r is known, got is
// w - ⌊r·f·w⌋: exactly when r·f·w has at most 53 significant bits, so that no float64
// evaluation of it can round, and within float64 rounding otherwise. It returns "" if got is
// right.
func jitterProblem(got, w time.Duration, d refDraw) string {
	cut := w - got
	switch {
	case got < 0 || got > w:
		return "outside [0, w]"
	case d.factor == 0 || w == 0:
		if got != w {
			return "not w, with nothing to cut it"
		}
		return ""
	case exactInt(cut).Cmp(exactProduct(w, d.factor)) >= 0:
		return "cut by f·w or more"
	case !d.known:
		return ""
	}
	want, _ := exactProduct(w, d.r, d.factor).Int64() // truncated: ⌊r·f·w⌋, as r·f·w ≥ 0
	if significantBits(d.r)+significantBits(d.factor)+bits.Len64(uint64(w))-bits.TrailingZeros64(uint64(w)) <= 53 {
		if cut != time.Duration(want) {
			return "not w - ⌊r·f·w⌋ exactly"
		}
		return ""
	}
	if diff := math.Abs(float64(cut - time.Duration(want))); diff > 1+float64(w)*0x1p-51 {
		return "not w - ⌊r·f·w⌋ within float64 rounding"
	}
	return ""
}

// exactProduct returns w multiplied by each of at most two factors, without rounding: 256
// bits hold a Duration's 63 and two float64 significands of 53.
func exactProduct(w time.Duration, factors ...float64) *big.Float {
	p := exactInt(w)
	for _, f := range factors {
		p.Mul(p, big.NewFloat(f))
	}
	return p
}

// exactInt returns d as a big.Float precise enough for exactProduct.
func exactInt(d time.Duration) *big.Float { return new(big.Float).SetPrec(256).SetInt64(int64(d)) }

// significantBits returns how many bits of x's significand, from its highest one bit to its
// lowest, are needed to write the finite number x ≥ 0: zero for zero.
func significantBits(x float64) int {
	if x == 0 {
		return 0
	}
	frac, _ := math.Frexp(x)
	m := uint64(frac * (1 << 53)) // x's significand as an integer: frac·2⁵³ is one for every x
	return 53 - bits.TrailingZeros64(m)
}
