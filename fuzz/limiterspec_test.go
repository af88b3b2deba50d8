package fuzz

import (
	"fmt"
	"math"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/actorqueue/workqueue"
)

// limiterKind is one of the rate limiters a fuzz input can build.
type limiterKind int

const (
	exponential limiterKind = iota // a: base delay, b: maximum delay
	fastSlow                       // a: fast delay, b: slow delay, n: fast attempts
	maxOf                          // parts
	maxWait                        // parts[0], a: maximum wait
	bucket                         // r: tokens per second, n: burst
	itemBucket                     // r: tokens per second, n: burst
	limiterKinds
)

// limiterSpec describes a rate limiter: what a fuzz input decodes into before anything is
// built, so that the library's limiter and the reference are built from the same numbers.
type limiterSpec struct {
	kind  limiterKind
	a, b  time.Duration
	n     int
	r     rate.Limit
	parts []limiterSpec
}

// numbers decodes the arguments of limiter constructors from an input.
type numbers struct {
	delay func(*input) time.Duration
	count func(*input) int
	rate  func(*input) rate.Limit
}

// tame are the numbers FuzzQueue builds its limiters with: small, valid, and few, so that
// delays collide and the bucket limiters both wait and refill within a run.
var tame = numbers{
	delay: func(in *input) time.Duration {
		return choose(in, 0, time.Millisecond, 5*time.Millisecond, 10*time.Millisecond, 50*time.Millisecond, time.Second)
	},
	count: func(in *input) int { return in.pick(4) },
	rate:  func(in *input) rate.Limit { return choose(in, 0, 1, 10, 100, rate.Inf) },
}

// wild are any numbers at all, edge values often.
var wild = numbers{
	delay: func(in *input) time.Duration {
		if in.pick(4) == 0 {
			return time.Duration(in.int64())
		}
		return choose(in, math.MinInt64, -1, 0, 1, 2, time.Millisecond, time.Second, time.Hour,
			1<<53, 1<<53+1, math.MaxInt64/2, math.MaxInt64)
	},
	count: func(in *input) int {
		if in.pick(4) == 0 {
			return int(in.int64())
		}
		return choose(in, math.MinInt, -1, 0, 1, 2, 3, 1000, math.MaxInt)
	},
	rate: func(in *input) rate.Limit {
		if in.pick(4) == 0 {
			return rate.Limit(in.float64())
		}
		return choose(in, -1, 0, 1e-9, 1, 10, 1e9, rate.Inf, rate.Limit(math.NaN()))
	},
}

// decodeLimiter reads a limiter description from in; depth bounds the nesting of max-of and
// max-wait.
func decodeLimiter(in *input, num numbers, depth int) limiterSpec {
	kind := limiterKind(in.pick(int(limiterKinds)))
	if depth == 0 && (kind == maxOf || kind == maxWait) {
		kind = exponential
	}
	s := limiterSpec{kind: kind}
	switch kind {
	case exponential, fastSlow:
		s.a, s.b = num.delay(in), num.delay(in)
		if kind == fastSlow {
			s.n = num.count(in)
		}
	case maxOf:
		for range in.pick(3) {
			s.parts = append(s.parts, decodeLimiter(in, num, depth-1))
		}
	case maxWait:
		s.parts = []limiterSpec{decodeLimiter(in, num, depth-1)}
		s.a = num.delay(in)
	case bucket, itemBucket:
		s.r, s.n = num.rate(in), num.count(in)
	}
	return s
}

// valid reports whether the library's constructors accept s: they refuse negative delays,
// and negative rates and bursts for an item bucket (a NaN rate is not negative).
func (s limiterSpec) valid() bool {
	switch s.kind {
	case exponential, fastSlow:
		return s.a >= 0 && s.b >= 0
	case maxWait:
		return s.a >= 0 && s.parts[0].valid()
	case itemBucket:
		return !(s.r < 0) && s.n >= 0
	case maxOf:
		for _, p := range s.parts {
			if !p.valid() {
				return false
			}
		}
	}
	return true
}

// build returns the library's limiter for s, through the root package's constructors. They
// panic when s is not valid.
func build[T comparable](s limiterSpec) workqueue.TypedRateLimiter[T] {
	switch s.kind {
	case exponential:
		return workqueue.NewTypedItemExponentialFailureRateLimiter[T](s.a, s.b)
	case fastSlow:
		return workqueue.NewTypedItemFastSlowRateLimiter[T](s.a, s.b, s.n)
	case maxOf:
		parts := make([]workqueue.TypedRateLimiter[T], len(s.parts))
		for i, p := range s.parts {
			parts[i] = build[T](p)
		}
		return workqueue.NewTypedMaxOfRateLimiter(parts...)
	case maxWait:
		return workqueue.NewTypedWithMaxWaitRateLimiter(build[T](s.parts[0]), s.a)
	case bucket:
		return &workqueue.TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(s.r, s.n)}
	default:
		return workqueue.NewTypedItemBucketRateLimiter[T](s.r, s.n)
	}
}

// ref returns the reference for s, which must be valid.
func ref[T comparable](s limiterSpec) reference[T] {
	switch s.kind {
	case exponential:
		return refExponential[T]{failures: failures[T]{}, base: s.a, max: s.b}
	case fastSlow:
		return refFastSlow[T]{failures: failures[T]{}, fast: s.a, slow: s.b, fastTries: s.n}
	case maxOf:
		parts := make(refMaxOf[T], len(s.parts))
		for i, p := range s.parts {
			parts[i] = ref[T](p)
		}
		return parts
	case maxWait:
		return refMaxWait[T]{reference: ref[T](s.parts[0]), max: s.a}
	case bucket:
		return refBucket[T]{bucket: rate.NewLimiter(s.r, s.n)}
	default:
		return newRefItemBucket[T](s.r, s.n)
	}
}

// String describes s as the constructor calls that build it.
func (s limiterSpec) String() string {
	switch s.kind {
	case exponential:
		return fmt.Sprintf("exponential(%v, %v)", s.a, s.b)
	case fastSlow:
		return fmt.Sprintf("fastSlow(%v, %v, %d)", s.a, s.b, s.n)
	case maxOf:
		parts := make([]string, len(s.parts))
		for i, p := range s.parts {
			parts[i] = p.String()
		}
		return "maxOf(" + strings.Join(parts, ", ") + ")"
	case maxWait:
		return fmt.Sprintf("maxWait(%v, %v)", s.parts[0], s.a)
	case bucket:
		return fmt.Sprintf("bucket(%v, %d)", s.r, s.n)
	default:
		return fmt.Sprintf("itemBucket(%v, %d)", s.r, s.n)
	}
}

// buildChecked builds the library's limiter for s and checks that its constructors panic,
// with a workqueue: message, exactly when s is not valid. It returns nil when they panicked,
// and a description of what went wrong, if anything did.
func buildChecked[T comparable](s limiterSpec) (l workqueue.TypedRateLimiter[T], problem string) {
	fault := catch(func() { l = build[T](s) })
	return l, refusal(s, s.valid(), fault)
}

// refusal checks the outcome of a construction from spec, which panicked with fault ("" if it
// returned): a constructor must panic, with a workqueue: message, exactly when spec is not
// valid. It says what went wrong, or returns "".
func refusal(spec fmt.Stringer, valid bool, fault string) string {
	switch {
	case fault == "" && !valid:
		return fmt.Sprintf("%v: accepted invalid arguments", spec)
	case fault != "" && valid:
		return fmt.Sprintf("%v: panicked: %s", spec, fault)
	case fault != "" && !strings.HasPrefix(fault, "workqueue: "):
		return fmt.Sprintf("%v: panic without the workqueue: prefix: %s", spec, fault)
	}
	return ""
}

// catch runs f and returns what it panicked with, as text, or "" if it returned.
func catch(f func()) (fault string) {
	defer func() {
		if r := recover(); r != nil {
			fault = fmt.Sprint(r)
			if fault == "" {
				fault = fmt.Sprintf("%#v", r)
			}
		}
	}()
	f()
	return ""
}
