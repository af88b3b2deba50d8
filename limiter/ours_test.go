package limiter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"golang.org/x/time/rate"
)

// Some of our limiters, embedded in a user's type that declares When: a slower version of
// them. It has our unexported methods, promoted, and so is a core.
type (
	hourExponential struct{ *Exponential[int] }
	hourBucket      struct{ *Bucket[int] }
	hourMaxOf       struct{ *MaxOf[int] }
	hourMaxWait     struct{ MaxWait[int] }
)

func (hourExponential) When(int) time.Duration { return time.Hour }
func (hourBucket) When(int) time.Duration      { return time.Hour }
func (hourMaxOf) When(int) time.Duration       { return time.Hour }
func (hourMaxWait) When(int) time.Duration     { return time.Hour }

// WhenAt, declared by a type that embeds one of ours, cannot be told from one it embeds.
func (hourExponential) WhenAt(int, time.Time) time.Duration { return time.Minute }

// timed is a user's limiter that implements Timed without embedding one of ours.
type timed struct{}

func (timed) When(int) time.Duration              { return time.Hour }
func (timed) WhenAt(int, time.Time) time.Duration { return time.Minute }
func (timed) Forget(int)                          {}
func (timed) NumRequeues(int) int                 { return 0 }

// funcLimiter is a user's limiter whose values cannot be compared.
type funcLimiter func() time.Duration

func (f funcLimiter) When(int) time.Duration { return f() }
func (funcLimiter) Forget(int)               {}
func (funcLimiter) NumRequeues(int) int      { return 0 }

// TestOnlyOurOwnTypesAreOurs: a limiter is ours, to adopt and call by its unexported methods,
// only if its type is one of this package's; a type that embeds one is called through its
// own methods, as client-go calls it.
func TestOnlyOurOwnTypesAreOurs(t *testing.T) {
	exp := NewExponential[int](time.Millisecond, time.Second)
	bucket := &Bucket[int]{Limiter: rate.NewLimiter(rate.Inf, 1)}
	maxWait := NewMaxWait[int](NewExponential[int](time.Millisecond, time.Second), time.Minute)
	for name, l := range map[string]RateLimiter[int]{
		"Exponential": exp, "FastSlow": NewFastSlow[int](time.Millisecond, time.Second, 1), "Bucket": bucket,
		"ItemBucket": NewItemBucket[int](1, 1), "MaxOf": NewMaxOf[int](exp), "MaxWait": maxWait,
		"MaxWait value": *maxWait,
	} {
		own := true
		_ = own
		assert.True(t, Safe(l), name)
	}

	wrappers := map[string]RateLimiter[int]{
		"Exponential": hourExponential{NewExponential[int](time.Millisecond, time.Second)},
		"Bucket":      hourBucket{&Bucket[int]{Limiter: rate.NewLimiter(rate.Inf, 1)}},
		"MaxWait":     hourMaxWait{*NewMaxWait[int](NewExponential[int](time.Millisecond, time.Second), time.Minute)},
		"MaxOf":       hourMaxOf{NewMaxOf[int](NewExponential[int](time.Millisecond, time.Second))},
	}
	for name, l := range wrappers {
		assert.False(t, Safe(l), name)
		assert.False(t, IsNil(l), name)
		_, adopted := Adopt(l, &owner{})
		assert.False(t, adopted, name)
		assert.Equal(t, time.Hour, WhenAt(l, 1, t0), "%s: its When, even if it declares a WhenAt", name)
		assert.Equal(t, time.Hour, WhenAt[int](NewMaxOf(l), 1, t0), "%s in MaxOf", name)
		assert.Equal(t, time.Hour, WhenAt[int](NewMaxWait(l, 2*time.Hour), 1, t0), "%s in MaxWait", name)
	}
	assert.Equal(t, time.Minute, WhenAt[int](timed{}, 1, t0), "a Timed type of yours")

	// A MaxWait compared with itself would panic: the limiter in it cannot be compared.
	odd := MaxWait[int]{limiter: funcLimiter(func() time.Duration { return time.Hour }), maxDelay: time.Minute}
	assert.NotPanics(t, func() {
		assert.False(t, Safe[int](odd))
		assert.False(t, IsNil[int](odd))
		_, adopted := Adopt[int](odd, &owner{})
		assert.False(t, adopted)
		assert.Equal(t, time.Minute, WhenAt[int](odd, 1, t0))
	})
}

// TestNilPointersToOurLimitersAreNotSafe: a nil pointer to one of ours is nil, not safe, and
// releasing it does nothing; a nil *MaxWait, whose methods take a value, included.
func TestNilPointersToOurLimitersAreNotSafe(t *testing.T) {
	for name, l := range map[string]RateLimiter[int]{
		"Exponential": (*Exponential[int])(nil),
		"Bucket":      (*Bucket[int])(nil),
		"MaxOf":       (*MaxOf[int])(nil),
		"MaxWait":     (*MaxWait[int])(nil),
	} {
		assert.True(t, IsNil(l), name)
		assert.False(t, Safe(l), name)
		assert.NotPanics(t, func() { Release(l, &owner{}) }, name)
	}
}
