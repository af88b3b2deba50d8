package limiter

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// TestBucketsOverOneLimiterAreAdoptedApart: Buckets over one rate.Limiter, a throttle shared by
// the queues of several controllers say, are adopted each by its own queue, and a call to one
// runs through its own owner only.
func TestBucketsOverOneLimiterAreAdoptedApart(t *testing.T) {
	first, second := &owner{}, &owner{}
	lim := rate.NewLimiter(rate.Inf, 1)
	a, b := &Bucket[int]{lim}, &Bucket[int]{lim}
	_, ok := Adopt[int](a, first)
	require.True(t, ok)
	_, ok = Adopt[int](b, second)
	require.True(t, ok, "the other Bucket is free to adopt")
	b.When(1)
	assert.Equal(t, 0, first.calls)
	assert.Equal(t, 1, second.calls)
}

// TestACopyOfABucketIsAnotherBucket: copying an adopted Bucket gives a Bucket of no owner.
func TestACopyOfABucketIsAnotherBucket(t *testing.T) {
	first := &owner{}
	b := &Bucket[int]{rate.NewLimiter(rate.Inf, 1)}
	_, ok := Adopt[int](b, first)
	require.True(t, ok)
	c := *b
	c.When(1)
	assert.Zero(t, first.calls, "the copy is not the owner's")
	_, ok = Adopt[int](&c, &owner{})
	assert.True(t, ok)
}

// TestABucketGuardIsMadeOnce: goroutines that first use a Bucket at the same time get the same
// guard.
func TestABucketGuardIsMadeOnce(t *testing.T) {
	b := &Bucket[int]{rate.NewLimiter(rate.Inf, 1)}
	guards := make([]*guard, 8)
	var wg sync.WaitGroup
	for i := range guards {
		wg.Go(func() {
			b.When(i)
			guards[i] = guardOf(b)
		})
	}
	wg.Wait()
	for i, g := range guards {
		assert.Same(t, guards[0], g, "guard %d", i)
	}
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
