package actor

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/actorqueue/workqueue/limiter"
)

// TestAQueueReleasesItsLimiterAtShutDown: a queue adopts a limiter of package limiter, and gives
// it back as it shuts down. Another queue can then adopt it: the limiter no longer refers to the
// first queue, which would keep it, with all its state, from the garbage collector.
func TestAQueueReleasesItsLimiterAtShutDown(t *testing.T) {
	rl := limiter.NewExponential[int](0, 0)
	first := New(Config[int]{})
	l := first.Adopt("test", rl, limiter.Retries[int]{})
	require.True(t, l.Owned(), "adopted")
	for i := range 1000 {
		first.AddRateLimited(i, l)
	}
	first.ShutDown()
	assert.False(t, l.Owned(), "released at shutdown")
	assert.Equal(t, 1, l.NumRequeues(7), "the failures stay with the limiter")

	second := New(Config[int]{})
	defer second.ShutDown()
	assert.True(t, second.Adopt("test", rl, limiter.Retries[int]{}).Owned(), "adopted again")
}

// TestAQueueReleasesALimiterItAdoptedInPart: a MaxOf whose second part another queue holds is
// adopted only in part, and the queue calls it as anyone else does; the first part is the
// queue's all the same, until it shuts down and gives it back.
func TestAQueueReleasesALimiterItAdoptedInPart(t *testing.T) {
	first, second := limiter.NewExponential[int](0, 0), limiter.NewExponential[int](0, 0)
	holder := New(Config[int]{})
	defer holder.ShutDown()
	holder.Adopt("test", second, limiter.Retries[int]{})
	q := New(Config[int]{})
	l := q.Adopt("test", limiter.NewMaxOf[int](first, second), limiter.Retries[int]{})
	assert.False(t, l.Owned(), "adopted in part only")
	q.AddRateLimited(1, l)
	q.ShutDown()
	other := New(Config[int]{})
	defer other.ShutDown()
	assert.True(t, other.Adopt("test", first, limiter.Retries[int]{}).Owned(), "the first part was given back")
	assert.Equal(t, 1, first.NumRequeues(1))
}
