package workqueue_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue"
)

func TestParallelizeUntil(t *testing.T) {
	for _, tc := range []struct{ pieces, workers, chunk int }{
		{1000, 10, 1}, {1000, 10, 10}, {1000, 10, 100}, {999, 10, 13}, {5, 10, 1}, {7, 3, 0}, {0, 3, 1},
	} {
		t.Run(fmt.Sprintf("%d pieces, %d workers, chunks of %d", tc.pieces, tc.workers, tc.chunk), func(t *testing.T) {
			seen := make([]atomic.Int32, tc.pieces)
			workqueue.ParallelizeUntil(context.Background(), tc.workers, tc.pieces, func(p int) {
				seen[p].Add(1)
			}, workqueue.WithChunkSize(tc.chunk))
			for p := range seen {
				assert.Equal(t, int32(1), seen[p].Load(), "piece %d", p)
			}
		})
	}
}

func TestParallelizeUntilStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int32
	workqueue.ParallelizeUntil(ctx, 1, 100, func(p int) {
		done.Add(1)
		if p == 9 {
			cancel()
		}
	})
	assert.Equal(t, int32(10), done.Load(), "pieces after the cancellation are skipped")
}

func TestParallelizeUntilWithNilContextAndNoWorkers(t *testing.T) {
	var done atomic.Int32
	workqueue.ParallelizeUntil(nil, 2, 10, func(int) { done.Add(1) }) //nolint:staticcheck // nil means never done
	assert.Equal(t, int32(10), done.Load())
	workqueue.ParallelizeUntil(context.Background(), 0, 10, func(int) { done.Add(1) })
	assert.Equal(t, int32(10), done.Load(), "no workers, no work, as in client-go")
}

func TestParallelizeUntilRaisesAWorkerPanicInTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done atomic.Int32
		assert.PanicsWithValue(t, "piece 3", func() {
			workqueue.ParallelizeUntil(context.Background(), 1, 100, func(p int) {
				if p == 3 {
					panic("piece 3")
				}
				done.Add(1)
			})
		})
		assert.Equal(t, int32(3), done.Load(), "work stops at the panic")
	})
}

// TestParallelizeUntilNegativeCounts: a negative count panics with a message naming it exactly
// where client-go's ParallelizeUntil panics, and returns where client-go's returns: no pieces
// come before negative workers, and negative pieces panic only if they round to a negative
// number of chunks.
func TestParallelizeUntilNegativeCounts(t *testing.T) {
	const (
		workers = "workqueue: ParallelizeUntil: negative number of workers -1"
		pieces  = "workqueue: ParallelizeUntil: negative number of pieces -1"
	)
	for _, tc := range []struct {
		workers, pieces, chunk int
		panic                  string // "" for none
	}{
		{workers: -1, pieces: 5, chunk: 1, panic: workers},
		{workers: -1, pieces: 0, chunk: 1},
		{workers: 1, pieces: -1, chunk: 1, panic: pieces},
		{workers: 0, pieces: -1, chunk: 0, panic: pieces},
		{workers: -1, pieces: -1, chunk: 1, panic: pieces},
		{workers: 1, pieces: -1, chunk: 2},
		{workers: -1, pieces: -1, chunk: 2, panic: workers},
		{workers: 3, pieces: -3, chunk: 2, panic: "workqueue: ParallelizeUntil: negative number of pieces -3"},
	} {
		t.Run(fmt.Sprintf("%d workers, %d pieces, chunks of %d", tc.workers, tc.pieces, tc.chunk), func(t *testing.T) {
			call := func() {
				workqueue.ParallelizeUntil(context.Background(), tc.workers, tc.pieces, func(p int) {
					t.Errorf("piece %d ran", p)
				}, workqueue.WithChunkSize(tc.chunk))
			}
			if tc.panic == "" {
				assert.NotPanics(t, call)
			} else {
				assert.PanicsWithValue(t, tc.panic, call)
			}
		})
	}
}
