package actor

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJoinLetsInOnlyTheFirstDelayingQueue(t *testing.T) {
	plain := New(Config[int]{})
	defer plain.ShutDown()
	assert.False(t, plain.Join(&stoppedClock{}), "another clock")
	assert.True(t, plain.Join(nil), "the first delaying queue on the same clock")
	assert.False(t, plain.Join(nil), "its delay heap is served already")

	for name, c := range map[string]Config[int]{
		"delaying":            {Delaying: true},
		"in front of another": {Forward: func(int) {}},
	} {
		q := New(c)
		assert.False(t, q.Join(nil), "%s: serves its own delay heap", name)
		q.ShutDown()
	}
}

func TestJoinLetsInOneOfSimultaneousCallers(t *testing.T) {
	q := New(Config[int]{})
	defer q.ShutDown()
	var joined atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if q.Join(nil) {
				joined.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), joined.Load())
}
