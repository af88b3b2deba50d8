package limiter

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// recorder is a limiter of others: never adopted, it records the items it forgets.
type recorder struct{ forgot []string }

func (r *recorder) When(string) time.Duration { return time.Second }
func (r *recorder) Forget(item string)        { r.forgot = append(r.forgot, item) }
func (r *recorder) NumRequeues(string) int    { return 0 }

// TestHandleGivesUpThroughWhoeverCallsTheLimiter: giving up on an item makes the limiter forget
// it once, in the owner (ForgetGivenUp) when the owner calls the limiter, in the caller
// (GiveUp) otherwise; the give-up function hears of it either way, after Max+1 attempts.
func TestHandleGivesUpThroughWhoeverCallsTheLimiter(t *testing.T) {
	var heard []string
	r := Retries[string]{Max: 1, GiveUp: func(item string, attempts int) { heard = append(heard, fmt.Sprint(item, attempts)) }}

	ours := NewExponential[string](time.Millisecond, time.Second)
	owned := NewHandle("test", ours, r)
	assert.True(t, owned.Adopt(&owner{}), "a limiter of this package is adopted")
	owned.WhenAt("a", time.Now())
	owned.WhenAt("b", time.Now())
	owned.GiveUp("a") // the caller's part: an owned limiter is not its to call
	assert.Equal(t, 1, owned.NumRequeues("a"), "the caller left the owned limiter alone")
	owned.ForgetGivenUp("a")
	assert.Equal(t, 0, owned.NumRequeues("a"), "the owner made it forget")
	assert.Equal(t, 1, owned.NumRequeues("b"), "and only the item given up on")

	theirs := &recorder{}
	other := NewHandle[string]("test", theirs, r)
	assert.False(t, other.Adopt(&owner{}), "a limiter of others is never adopted")
	other.ForgetGivenUp("c") // the owner's part: not its limiter to call
	assert.Empty(t, theirs.forgot)
	other.GiveUp("c")
	assert.Equal(t, []string{"c"}, theirs.forgot, "the caller made it forget")
	assert.Equal(t, []string{"a2", "c2"}, heard, "each after Max+1 attempts")
}

// TestHandleReleased: once released, a handle is no longer owned, and asks the limiter as
// anyone does; the limiter keeps what it counted.
func TestHandleReleased(t *testing.T) {
	o := &owner{}
	h := NewHandle("test", NewExponential[int](time.Millisecond, time.Second), Retries[int]{})
	h.Adopt(o)
	h.WhenAt(1, time.Now())
	h.Release(o)
	assert.False(t, h.Owned())
	assert.Equal(t, 1, h.NumRequeues(1))
	assert.Equal(t, 2*time.Millisecond, h.WhenAt(1, time.Now()))
}

// TestHandleOfNil: a nil limiter is accepted; asking it panics with the constructor's name.
func TestHandleOfNil(t *testing.T) {
	h := NewHandle[int]("NewTypedRateLimitingQueue", nil, Retries[int]{})
	assert.False(t, h.Adopt(&owner{}))
	assert.PanicsWithError(t, "workqueue: AddRateLimited: the queue has no rate limiter: NewTypedRateLimitingQueue was given nil",
		func() { h.WhenAt(1, time.Now()) })
}
