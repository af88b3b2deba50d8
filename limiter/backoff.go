package limiter

import (
	"math"
	"math/rand/v2"
	"time"
)

// Backoff describes a sequence of growing waits, with the fields and meaning of
// k8s.io/apimachinery's wait.Backoff. Its zero value waits zero forever. Step mutates it, so a
// Backoff is not safe for concurrent use.
type Backoff struct {
	// Duration is the next wait, before jitter.
	Duration time.Duration
	// Factor multiplies Duration after each step while Steps lasts; zero keeps it. It should not
	// be negative.
	Factor float64
	// Jitter, when positive, adds to each wait a random amount between zero and Jitter·Duration.
	// It does not change Duration itself.
	Jitter float64
	// Steps is how many more times Duration may change. When it is not positive, Duration stays
	// as it is.
	Steps int
	// Cap, when positive, limits Duration: a step that would exceed it sets Duration to Cap and
	// Steps to zero.
	Cap time.Duration
}

// Step returns the next wait and advances b. A nil *Backoff always returns zero.
//
// Unlike apimachinery, Step saturates instead of overflowing: without a Cap, a Duration grown
// past the largest time.Duration stays at the largest one rather than turning negative.
func (b *Backoff) Step() time.Duration {
	if b == nil {
		return 0
	}
	return b.step(rand.Float64)
}

// step is Step with the source of randomness as an argument.
func (b *Backoff) step(random func() float64) time.Duration {
	wait := b.Duration
	if b.Steps >= 1 {
		b.Steps--
		if b.Factor != 0 {
			b.Duration = scale(b.Duration, b.Factor)
			if b.Cap > 0 && b.Duration > b.Cap {
				b.Duration, b.Steps = b.Cap, 0
			}
		}
	}
	if b.Jitter > 0 {
		wait = jitter(wait, b.Jitter, random())
	}
	return wait
}

// Jitter returns a random duration between d and d + maxFactor·d, as apimachinery's
// wait.Jitter does. A maxFactor of zero or less means 1. The result saturates at the largest
// time.Duration instead of overflowing.
func Jitter(d time.Duration, maxFactor float64) time.Duration {
	if maxFactor <= 0 {
		maxFactor = 1
	}
	return jitter(d, maxFactor, rand.Float64())
}

// jitter returns d + r·maxFactor·d, saturated; r is a random number in [0, 1). Like
// apimachinery, it computes only the added part in float64 and adds it to d exactly: a sum
// in float64 would round a d above 2⁵³ ns (104 days) by up to 512 ns either way.
func jitter(d time.Duration, maxFactor, r float64) time.Duration {
	return add(d, saturate(r*maxFactor*float64(d)))
}

// add returns a + b, clamped to the range of Duration.
func add(a, b time.Duration) time.Duration {
	sum := a + b
	switch {
	case a > 0 && b > 0 && sum < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && sum >= 0:
		return math.MinInt64
	}
	return sum
}

// scale returns d·factor, saturated.
func scale(d time.Duration, factor float64) time.Duration {
	return saturate(float64(d) * factor)
}

// saturate converts a float64 number of nanoseconds to a Duration, clamping it to the range of
// Duration. NaN becomes zero.
func saturate(ns float64) time.Duration {
	switch {
	case ns != ns:
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}
