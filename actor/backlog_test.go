package actor

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestABacklogBeyondTheCacheKeepsItsOrder: behind a backlog large enough for the owner to read
// ahead (100,000 items fill 262,144 slots; see fifo.prefetch and table.Map.Outgrown), items
// still come out once each, in the order of their first add, and the items added again while
// waiting are not queued twice.
func TestABacklogBeyondTheCacheKeepsItsOrder(t *testing.T) {
	const n = 100_000
	q := New(Config[int]{})
	defer q.ShutDown()
	for i := range n {
		q.Add(i)
		q.Add(i / 2) // waiting already
	}
	require.Equal(t, n, q.Len())
	for want := range n {
		item, shutdown := q.Get()
		require.False(t, shutdown)
		require.Equal(t, want, item, "the item handed out after %d others", want)
		q.Done(item)
	}
	require.Zero(t, q.Len())
}
