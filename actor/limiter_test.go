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
	l := first.Adopt(NewLimiter[int]("test", rl), nil)
	require.True(t, l.safe.Load(), "adopted")
	for i := range 1000 {
		first.AddRateLimited(i, l)
	}
	first.ShutDown()
	assert.False(t, l.safe.Load(), "released at shutdown")
	assert.Equal(t, 1, l.numRequeues(7), "the failures stay with the limiter")

	second := New(Config[int]{})
	defer second.ShutDown()
	assert.True(t, second.Adopt(NewLimiter[int]("test", rl), nil).safe.Load(), "adopted again")
}
