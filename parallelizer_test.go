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
