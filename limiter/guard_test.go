package limiter

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// counters builds, fresh for each use, every limiter of this package that counts failures,
// alone and inside each combinator.
var counters = map[string]func() RateLimiter[int]{
	"Exponential": func() RateLimiter[int] { return NewExponential[int](time.Millisecond, time.Second) },
	"FastSlow":    func() RateLimiter[int] { return NewFastSlow[int](time.Millisecond, time.Second, 3) },
	"MaxOf": func() RateLimiter[int] {
		return NewMaxOf[int](NewExponential[int](time.Millisecond, time.Second), NewItemBucket[int](1, 1),
			&Bucket[int]{Limiter: rate.NewLimiter(rate.Inf, 1)})
	},
	"MaxWait": func() RateLimiter[int] { return NewMaxWait[int](NewFastSlow[int](0, time.Second, 1), time.Hour) },
}

// TestLimitersAreSafeForConcurrentUse: goroutines that share a limiter no queue has adopted, as
// client-go's may be shared, lose no failure; -race checks that they do not race.
func TestLimitersAreSafeForConcurrentUse(t *testing.T) {
	const goroutines, failures = 4, 200
	for name, build := range counters {
		t.Run(name, func(t *testing.T) {
			l := build()
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range failures {
						l.When(i % 10)
						l.NumRequeues(i % 10)
						l.Forget(10 + g) // an item of its own: the others keep their counts
					}
				})
			}
			wg.Wait()
			for item := range 10 {
				assert.Equal(t, goroutines*failures/10, l.NumRequeues(item), "failures of %d", item)
			}
		})
	}
}

// owner runs the functions handed to it one at a time, and counts them.
type owner struct {
	mu    sync.Mutex
	calls int
}

func (o *owner) Do(f func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls++
	f()
}

// TestAnAdoptedLimiterRunsOtherCallsThroughItsOwner: once adopted, a limiter is called without
// its owner by the owner, through Adopted, and through the owner's Do by everyone else; both
// see the same state.
func TestAnAdoptedLimiterRunsOtherCallsThroughItsOwner(t *testing.T) {
	for name, build := range counters {
		t.Run(name, func(t *testing.T) {
			l, o := build(), &owner{}
			a, ok := Adopt(l, o)
			require.True(t, ok)
			now := time.Now()
			a.WhenAt(1, now)
			a.WhenAt(1, now)
			assert.Zero(t, o.calls, "the owner's own calls")
			assert.Equal(t, 2, l.NumRequeues(1), "failures the owner recorded, read elsewhere")
			l.When(1)
			l.Forget(2)
			assert.Equal(t, 3, a.NumRequeues(1), "a failure recorded elsewhere, read by the owner")
			assert.Positive(t, o.calls, "calls made elsewhere run through the owner")
		})
	}
}

// TestAdoptionIsExclusive: a limiter has one owner at most. Another owner's Adopt fails, so
// that it calls the limiter as anyone else does; the first owner may adopt it again. A limiter
// with a random source of its own is never adopted: it is not safe (see Safe).
func TestAdoptionIsExclusive(t *testing.T) {
	first, second := &owner{}, &owner{}
	shared := NewExponential[int](time.Millisecond, time.Second)
	_, ok := Adopt[int](shared, first)
	require.True(t, ok)
	_, ok = Adopt[int](shared, second)
	assert.False(t, ok, "adopted by another owner")
	_, ok = Adopt[int](NewMaxOf[int](NewItemBucket[int](1, 1), shared), second)
	assert.False(t, ok, "a part adopted by another owner")
	_, ok = Adopt[int](shared, first)
	assert.True(t, ok, "adopted again by its owner")

	shared.When(1)
	assert.Equal(t, 1, first.calls, "calls run through the first owner")
	assert.Zero(t, second.calls)

	own := NewExponential[int](time.Millisecond, time.Second, JitterFactor(0.5), RandomSource(rand.NewPCG(1, 2)))
	_, ok = Adopt[int](own, first)
	assert.False(t, ok, "a limiter with a random source of its own")
	own.When(1)
	assert.Equal(t, 1, first.calls, "a limiter not adopted takes its lock instead")
}

// TestCallsUnderTheGuardDoNotAllocate: a limiter no queue has adopted is called under its
// guard's lock without a closure, as client-go's are called under theirs: no allocation. A
// Bucket finds its guard without one, once its first call has made it.
func TestCallsUnderTheGuardDoNotAllocate(t *testing.T) {
	l := NewMaxOf[int](NewExponential[int](time.Millisecond, time.Second, ForgetAfter(0)),
		NewFastSlow[int](time.Millisecond, time.Second, 3, ForgetAfter(0)),
		&Bucket[int]{rate.NewLimiter(rate.Inf, 1)})
	allocs := testing.AllocsPerRun(100, func() {
		l.When(1)
		l.NumRequeues(1)
		l.Forget(1)
	})
	assert.Zero(t, allocs, "allocations per When, NumRequeues and Forget")
}

// TestARandomSourceOptionMayBeShared: limiters built with one RandomSource option, used at the
// same time, draw from its source one at a time; -race checks it.
func TestARandomSourceOptionMayBeShared(t *testing.T) {
	src := RandomSource(rand.NewPCG(1, 2))
	a := NewExponential[int](time.Second, time.Hour, JitterFactor(0.5), src)
	b := NewFastSlow[int](time.Second, time.Hour, 1, JitterFactor(0.5), src)
	var wg sync.WaitGroup
	for _, l := range []RateLimiter[int]{a, b} {
		wg.Go(func() {
			for range 200 {
				if w := l.When(1); w <= 0 || w > time.Hour {
					t.Errorf("a jittered wait of %v", w)
					return
				}
			}
		})
	}
	wg.Wait()
}

// doFunc is an Owner of a type that cannot be compared.
type doFunc func(func())

func (d doFunc) Do(f func()) { d(f) }

// zeroOwner is an Owner of size zero: two pointers to such values may be equal.
type zeroOwner struct{}

func (*zeroOwner) Do(f func()) { f() }

// TestAdoptRefusesAnOwnerThatIsNotAPointer: Adopt tells owners apart by identity, so it panics,
// before it adopts anything, for an owner that is not a non-nil pointer to a value of some size.
func TestAdoptRefusesAnOwnerThatIsNotAPointer(t *testing.T) {
	l := NewExponential[int](time.Millisecond, time.Second)
	for _, o := range []Owner{doFunc(func(f func()) { f() }), nil, (*owner)(nil), &zeroOwner{}} {
		assert.PanicsWithValue(t,
			fmt.Sprintf("workqueue: limiter.Adopt: owner %T is not a non-nil pointer to a value of some size", o),
			func() { Adopt[int](l, o) })
	}
	_, ok := Adopt[int](l, &owner{})
	assert.True(t, ok, "nothing was adopted before")
	_, ok = Adopt[int]((*MaxWait[int])(nil), &owner{})
	assert.False(t, ok, "a nil limiter")
}

// TestMaxOfKeepsItsOwnParts: changing the slice NewMaxOf was given changes nothing in it.
func TestMaxOfKeepsItsOwnParts(t *testing.T) {
	parts := []RateLimiter[int]{NewExponential[int](time.Second, time.Hour)}
	l := NewMaxOf(parts...)
	parts[0] = NewExponential[int](time.Hour, time.Hour)
	assert.Equal(t, time.Second, l.When(1))
}

// TestReleaseGivesTheStateBack: once its owner releases it, a limiter takes its lock again, and
// another owner may adopt it. Release leaves alone the parts another owner has.
func TestReleaseGivesTheStateBack(t *testing.T) {
	first, second := &owner{}, &owner{}
	part := NewExponential[int](time.Millisecond, time.Second)
	l := NewMaxOf[int](part, NewFastSlow[int](time.Millisecond, time.Second, 1))
	_, ok := Adopt[int](l, first)
	require.True(t, ok)
	l.When(1)
	require.Equal(t, 2, first.calls, "each part's call runs through the owner")

	Release[int](l, first)
	l.When(1)
	assert.Equal(t, 2, first.calls, "a released limiter takes its lock")
	assert.Equal(t, 2, l.NumRequeues(1), "the state is the same")

	_, ok = Adopt[int](part, second)
	require.True(t, ok, "another owner adopts a released part")
	Release[int](l, first) // first owns nothing now
	part.When(1)
	assert.Equal(t, 1, second.calls, "the part still runs through its new owner")
}
