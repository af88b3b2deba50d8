package limiter

import (
	"runtime"
	"sync"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// TestBucketsOverOneLimiterShareTheirGuard: what a queue adopts is the token bucket, so Buckets
// over the same rate.Limiter, written as client-go's are, are adopted and released together.
func TestBucketsOverOneLimiterShareTheirGuard(t *testing.T) {
	first, second := &owner{}, &owner{}
	lim := rate.NewLimiter(rate.Inf, 1)
	a, b := &Bucket[int]{lim}, &Bucket[int]{lim}
	_, ok := Adopt[int](a, first)
	require.True(t, ok)
	_, ok = Adopt[int](b, second)
	assert.False(t, ok, "a Bucket over a token bucket another owner has")
	_, ok = Adopt[int](b, first)
	assert.True(t, ok, "a Bucket over a token bucket its owner has")
	b.When(1)
	assert.Equal(t, 1, first.calls, "a call to the other Bucket runs through the owner")

	Release[int](a, first)
	_, ok = Adopt[int](b, second)
	assert.True(t, ok, "released with the first Bucket")
	assert.Zero(t, second.calls)
}

// TestABucketFollowsItsLimiter: a Bucket whose Limiter is set to another rate.Limiter is
// guarded as that one is.
func TestABucketFollowsItsLimiter(t *testing.T) {
	first, second := &owner{}, &owner{}
	b := &Bucket[int]{rate.NewLimiter(rate.Inf, 1)}
	_, ok := Adopt[int](b, first)
	require.True(t, ok)
	old := b.Limiter
	b.Limiter = rate.NewLimiter(rate.Inf, 1)
	b.When(1)
	assert.Zero(t, first.calls, "the new rate.Limiter has no owner")
	_, ok = Adopt[int](b, second)
	assert.True(t, ok, "the new rate.Limiter is free to adopt")
	_, ok = Adopt[int](&Bucket[int]{old}, second)
	assert.False(t, ok, "the old rate.Limiter keeps its owner")
}

// TestABucketGuardIsMadeOnce: goroutines that first use a rate.Limiter at the same time, each
// through a Bucket of its own, get the same guard.
func TestABucketGuardIsMadeOnce(t *testing.T) {
	lim := rate.NewLimiter(rate.Inf, 1)
	guards := make([]*guard, 8)
	var wg sync.WaitGroup
	for i := range guards {
		wg.Go(func() {
			b := Bucket[int]{lim}
			b.When(i)
			guards[i] = guardOf(b.Limiter)
		})
	}
	wg.Wait()
	for i, g := range guards {
		assert.Same(t, guards[0], g, "guard %d", i)
	}
}

// TestABucketGuardGoesWithItsLimiter: the guard of a rate.Limiter that has been collected is
// dropped, so that the guards do not grow with every rate.Limiter ever used.
func TestABucketGuardGoesWithItsLimiter(t *testing.T) {
	lim := rate.NewLimiter(rate.Inf, 1)
	(&Bucket[int]{lim}).When(1)
	key := weak.Make(lim)
	_, ok := guards.Load(key)
	require.True(t, ok, "a guard made on first use")
	lim = nil
	for range 100 { // cleanups run after a collection, in a goroutine of the runtime's
		runtime.GC()
		if _, ok = guards.Load(key); !ok {
			break
		}
		runtime.Gosched()
	}
	assert.False(t, ok, "the guard of a collected rate.Limiter")
}

// TestABucketWithoutLimiterPanicsInTheCaller: a Bucket without a rate.Limiter is not safe, and
// panics when asked to wait, as client-go's does, with no guard left behind held.
func TestABucketWithoutLimiterPanicsInTheCaller(t *testing.T) {
	b := &Bucket[int]{}
	assert.False(t, Safe[int](b))
	_, ok := Adopt[int](b, &owner{})
	assert.False(t, ok)
	assert.Panics(t, func() { b.When(1) })
	assert.Panics(t, func() { b.When(1) }, "again: nothing was left locked")
}
