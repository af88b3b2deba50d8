package fuzz

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/limiter"
)

// FuzzRateLimiters builds a rate limiter from arbitrary numbers (exponential, fast-slow,
// max-of, with-max-wait, bucket, per-item bucket, nested) and compares every answer of When,
// NumRequeues and Forget, at instants that move forward, with the reference built from the
// same numbers. Invalid numbers must make the constructors panic with a workqueue: message.
// Every wait must be at least zero; an exponential wait must be base·2ⁿ within float64
// rounding, and at most the maximum; a capped wait at most its cap. A run of a thousand
// failures drives 2ⁿ past every limit.
func FuzzRateLimiters(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &input{data: data}
		spec := decodeLimiter(in, wild, 2)
		real, problem := buildChecked[int](spec)
		if problem != "" {
			t.Fatal(problem)
		}
		if real == nil {
			return // invalid numbers, refused as they should be
		}
		want := ref[int](spec)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for calls := 0; calls < 200 && !in.done(); calls++ {
			item := in.pick(3)
			switch in.pick(5) {
			case 0, 1:
				now = now.Add(choose(in, 0, time.Millisecond, 100*time.Millisecond, time.Second, time.Hour))
				checkWhen(t, spec, real, want, item, now)
			case 2:
				for range choose(in, 10, 64, 1100) {
					checkWhen(t, spec, real, want, item, now)
				}
			case 3:
				real.Forget(item)
				want.forget(item)
			case 4:
				if got, want := real.NumRequeues(item), want.requeues(item); got != want {
					t.Fatalf("%v: NumRequeues(%d) = %d, want %d", spec, item, got, want)
				}
			}
		}
	})
}

// checkWhen asks real and want how long item waits at now, and checks the answer.
func checkWhen(t *testing.T, spec limiterSpec, real limiter.RateLimiter[int], want reference[int], item int, now time.Time) {
	t.Helper()
	failures := want.requeues(item)
	got, expected := limiter.WhenAt(real, item, now), want.when(item, now)
	if got != expected {
		t.Fatalf("%v: When(%d) after %d failures = %v, want %v", spec, item, failures, got, expected)
	}
	if got < 0 {
		t.Fatalf("%v: When(%d) = %v, negative", spec, item, got)
	}
	switch spec.kind {
	case exponential:
		if exact := exactExponential(spec.a, spec.b, failures); got > spec.b || !withinRounding(got, exact) {
			t.Fatalf("%v: When(%d) after %d failures = %v, want %v (min(base·2ⁿ, max))", spec, item, failures, got, exact)
		}
	case maxWait:
		if got > spec.a {
			t.Fatalf("%v: When(%d) = %v, above the cap", spec, item, got)
		}
	}
}

// exactExponential returns min(base·2ⁿ, max) in exact arithmetic.
func exactExponential(base, max time.Duration, n int) time.Duration {
	if base == 0 {
		return 0
	}
	if n >= 63 {
		return max // base·2ⁿ ≥ 2⁶³, beyond any duration
	}
	product := new(big.Int).Lsh(big.NewInt(int64(base)), uint(n))
	if product.Cmp(big.NewInt(int64(max))) > 0 {
		return max
	}
	return time.Duration(product.Int64())
}

// withinRounding reports whether got is exact up to float64 rounding: a relative error of at
// most 2⁻⁵².
func withinRounding(got, exact time.Duration) bool {
	return math.Abs(float64(got)-float64(exact)) <= float64(exact)*0x1p-52
}
