package equivalence

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// TestParallelizeUntilCounts: for every mix of worker count, piece count and chunk size,
// zero and negative ones included, ParallelizeUntil panics exactly when client-go's does and
// otherwise runs the same pieces.
func TestParallelizeUntilCounts(t *testing.T) {
	type chunking struct {
		set  bool // whether WithChunkSize is passed
		size int
	}
	for _, workers := range []int{-2, -1, 0, 1, 3} {
		for _, pieces := range []int{-3, -1, 0, 1, 5} {
			for _, chunk := range []chunking{{}, {true, -1}, {true, 0}, {true, 1}, {true, 2}, {true, 4}} {
				var (
					theirs []clientgo.Options
					ours   []actorqueue.Options
				)
				name := fmt.Sprintf("%d workers, %d pieces, no chunk size", workers, pieces)
				if chunk.set {
					theirs = append(theirs, clientgo.WithChunkSize(chunk.size))
					ours = append(ours, actorqueue.WithChunkSize(chunk.size))
					name = fmt.Sprintf("%d workers, %d pieces, chunks of %d", workers, pieces, chunk.size)
				}
				want := parallelizeOutcome(func(f func(int)) {
					clientgo.ParallelizeUntil(context.Background(), workers, pieces, f, theirs...)
				})
				got := parallelizeOutcome(func(f func(int)) {
					actorqueue.ParallelizeUntil(context.Background(), workers, pieces, f, ours...)
				})
				if got != want {
					t.Errorf("%s: actorqueue %s, client-go %s", name, got, want)
				}
			}
		}
	}
}

// parallelizeOutcome calls run with a piece function and describes what happened: whether run
// panicked, and which pieces ran, in order.
func parallelizeOutcome(run func(doWorkPiece func(piece int))) (outcome string) {
	var (
		mu  sync.Mutex
		ran []int
	)
	defer func() {
		panicked := recover() != nil
		slices.Sort(ran)
		outcome = fmt.Sprintf("panicked %t, ran pieces %v", panicked, ran)
	}()
	run(func(p int) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, p)
	})
	return ""
}
