package fuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/actorqueue/workqueue"
	"github.com/actorqueue/workqueue/limiter"
)

// trackerCtor is one of the constructors of a failure-counting limiter that takes options.
type trackerCtor int

const (
	rootExponential trackerCtor = iota // workqueue.NewTypedItemExponentialFailureRateLimiterWithOptions
	rootFastSlow                       // workqueue.NewTypedItemFastSlowRateLimiterWithOptions
	rootJittered                       // workqueue.NewTypedJitteredExponentialFailureRateLimiter
	newExponential                     // limiter.NewExponential
	newFastSlow                        // limiter.NewFastSlow
	trackerCtors
)

// optionKind is one of the options of package limiter, or a nil one.
type optionKind int

const (
	forgetAfterOption optionKind = iota // d
	maxTrackedOption                    // n
	jitterOption                        // factor
	sourceOption                        // draws
	nilOption                           // a nil Option
	nilSourceOption                     // RandomSource of a nil *rand.PCG
	optionKinds
)

// trackerOption describes one option: what a fuzz input decodes into before it is built.
type trackerOption struct {
	kind   optionKind
	d      time.Duration
	n      int
	factor float64
	draws  []uint64 // what the source's Uint64 returns, over and over
}

// trackerSpec describes a failure-counting limiter and its options, so that the library's
// limiter and the reference are built from the same numbers.
type trackerSpec struct {
	ctor      trackerCtor
	a, b      time.Duration // base and maximum delay, or fast and slow delay
	fastTries int           // the fast-slow constructors' maxFastAttempts
	jitter    float64       // the jittered constructor's jitter
	opts      []trackerOption
}

// The tables the decoders choose from, edge values first. The seeds look values up in them.
var (
	optionDelays = []time.Duration{math.MinInt64, -1, 0, 1, time.Millisecond, time.Second, time.Minute,
		time.Hour, 1<<53 + 1, math.MaxInt64 - time.Hour, math.MaxInt64 - time.Hour + 1, math.MaxInt64}
	optionCounts  = []int{math.MinInt, -1, 0, 1, 2, 3, 5, math.MaxInt}
	optionFactors = []float64{math.NaN(), math.Inf(-1), -1, math.Copysign(0, -1), 0, 5e-324, 0.2, 0.25,
		0.5, 0.75, 1 - 0x1p-53, 1, 1 + 0x1p-52, math.Inf(1)}
	// optionDraws, through rand.New, are Float64s of 0, 1/8, ..., 7/8 and the largest below 1.
	optionDraws = []uint64{0, 1 << 50, 2 << 50, 3 << 50, 4 << 50, 5 << 50, 6 << 50, 7 << 50, math.MaxUint64}
)

// rawValue is the selector that makes a decoder read eight raw bytes instead of a table entry.
const rawValue = 0

// decodeTracker reads a limiter description from in: a constructor, its numbers, and up to
// four options, any of them invalid.
func decodeTracker(in *input) trackerSpec {
	s := trackerSpec{ctor: trackerCtor(in.pick(int(trackerCtors))), a: optionDelay(in), b: optionDelay(in)}
	switch s.ctor {
	case rootFastSlow, newFastSlow:
		s.fastTries = optionCount(in)
	case rootJittered:
		s.jitter = optionFactor(in)
	}
	for range in.pick(5) {
		o := trackerOption{kind: optionKind(in.pick(int(optionKinds)))}
		switch o.kind {
		case forgetAfterOption:
			o.d = optionDelay(in)
		case maxTrackedOption:
			o.n = optionCount(in)
		case jitterOption:
			o.factor = optionFactor(in)
		case sourceOption:
			for range 1 + in.pick(4) {
				o.draws = append(o.draws, optionDraw(in))
			}
		}
		s.opts = append(s.opts, o)
	}
	return s
}

func optionDelay(in *input) time.Duration {
	if in.pick(8) == rawValue {
		return time.Duration(in.int64())
	}
	return choose(in, optionDelays...)
}

func optionCount(in *input) int {
	if in.pick(8) == rawValue {
		return int(in.int64())
	}
	return choose(in, optionCounts...)
}

func optionFactor(in *input) float64 {
	if in.pick(8) == rawValue {
		return in.float64()
	}
	return choose(in, optionFactors...)
}

func optionDraw(in *input) uint64 {
	if in.pick(4) == rawValue {
		return in.uint64()
	}
	return choose(in, optionDraws...)
}

// valid reports whether the documentation says the constructors accept s: no negative delay,
// a jitter between 0 and 1, and no option that panics when it is created (ForgetAfter of a
// negative duration, MaxTracked of a negative count, JitterFactor out of [0, 1] or NaN,
// RandomSource of nil) nor a nil one.
func (s trackerSpec) valid() bool {
	if s.a < 0 || s.b < 0 || s.ctor == rootJittered && !inUnit(s.jitter) {
		return false
	}
	for _, o := range s.opts {
		switch {
		case o.kind == forgetAfterOption && o.d < 0,
			o.kind == maxTrackedOption && o.n < 0,
			o.kind == jitterOption && !inUnit(o.factor),
			o.kind == nilOption, o.kind == nilSourceOption:
			return false
		}
	}
	return true
}

// inUnit reports whether f is between 0 and 1; NaN is not.
func inUnit(f float64) bool { return 0 <= f && f <= 1 }

// exponential reports whether s builds an exponential limiter, rather than a fast-slow one.
func (s trackerSpec) exponential() bool {
	return s.ctor != rootFastSlow && s.ctor != newFastSlow
}

// ownSource reports whether s gives its limiter a random source.
func (s trackerSpec) ownSource() bool {
	for _, o := range s.opts {
		if o.kind == sourceOption {
			return true
		}
	}
	return false
}

// tracker is what the constructors of trackerCtor return.
type tracker interface {
	limiter.RateLimiter[int]
	limiter.Timed[int]
	Tracked() int
}

// build returns the library's limiter for s. Its constructors, and those of the options,
// panic when s is not valid.
func (s trackerSpec) build() tracker {
	opts := make([]workqueue.RateLimiterOption, len(s.opts))
	for i, o := range s.opts {
		opts[i] = o.build()
	}
	switch s.ctor {
	case rootExponential:
		return workqueue.NewTypedItemExponentialFailureRateLimiterWithOptions[int](s.a, s.b, opts...)
	case rootFastSlow:
		return workqueue.NewTypedItemFastSlowRateLimiterWithOptions[int](s.a, s.b, s.fastTries, opts...)
	case rootJittered:
		return workqueue.NewTypedJitteredExponentialFailureRateLimiter[int](s.a, s.b, s.jitter, opts...)
	case newExponential:
		return limiter.NewExponential[int](s.a, s.b, opts...)
	default:
		return limiter.NewFastSlow[int](s.a, s.b, s.fastTries, opts...)
	}
}

func (o trackerOption) build() limiter.Option {
	switch o.kind {
	case forgetAfterOption:
		return limiter.ForgetAfter(o.d)
	case maxTrackedOption:
		return limiter.MaxTracked(o.n)
	case jitterOption:
		return limiter.JitterFactor(o.factor)
	case sourceOption:
		return limiter.RandomSource(&cycle{values: o.draws})
	case nilSourceOption:
		return limiter.RandomSource((*rand.PCG)(nil))
	default:
		return nil
	}
}

// buildChecked builds the library's limiter for s and checks that it panics, with a
// workqueue: message, exactly when s is not valid. It returns nil when it panicked, and a
// description of what went wrong, if anything did.
func (s trackerSpec) buildChecked() (l tracker, problem string) {
	fault := catch(func() { l = s.build() })
	return l, refusal(s, s.valid(), fault)
}

// String describes s as the constructor call that builds it.
func (s trackerSpec) String() string {
	args := []string{fmt.Sprint(s.a), fmt.Sprint(s.b)}
	switch s.ctor {
	case rootFastSlow, newFastSlow:
		args = append(args, fmt.Sprint(s.fastTries))
	case rootJittered:
		args = append(args, fmt.Sprint(s.jitter))
	}
	for _, o := range s.opts {
		args = append(args, o.String())
	}
	name := [...]string{
		"NewTypedItemExponentialFailureRateLimiterWithOptions", "NewTypedItemFastSlowRateLimiterWithOptions",
		"NewTypedJitteredExponentialFailureRateLimiter", "limiter.NewExponential", "limiter.NewFastSlow",
	}[s.ctor]
	return name + "(" + strings.Join(args, ", ") + ")"
}

func (o trackerOption) String() string {
	switch o.kind {
	case forgetAfterOption:
		return fmt.Sprintf("ForgetAfter(%v)", o.d)
	case maxTrackedOption:
		return fmt.Sprintf("MaxTracked(%d)", o.n)
	case jitterOption:
		return fmt.Sprintf("JitterFactor(%v)", o.factor)
	case sourceOption:
		return fmt.Sprintf("RandomSource(cycle%#x)", o.draws)
	case nilSourceOption:
		return "RandomSource((*rand.PCG)(nil))"
	default:
		return "nil"
	}
}

// cycle is a random source that returns its values in turn, over and over.
type cycle struct {
	values []uint64
	next   int
}

func (c *cycle) Uint64() uint64 {
	v := c.values[c.next%len(c.values)]
	c.next++
	return v
}
