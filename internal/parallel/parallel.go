// Package parallel runs pieces of work on a bounded number of goroutines: ParallelizeUntil of
// the root package, which starts goroutines of its own, apart from any queue's owner.
package parallel

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// ParallelizeUntil calls doWorkPiece(p) for every p from 0 to pieces-1 on up to workers
// goroutines, handing out pieces in chunks of chunkSize (at least 1), and returns when all are
// done. Once ctx is done (a nil ctx never is), pieces not yet started are skipped. With zero
// workers or zero pieces nothing runs, as in client-go.
//
// Negative counts panic where client-go's do, and in the same order. First, negative pieces
// panic if client-go's number of chunks, (pieces+chunkSize-1)/chunkSize in integer division,
// is negative: if pieces <= 1-2*chunkSize, so -1 piece panics in chunks of 1 but not of 2.
// Then negative workers panic unless pieces is 0.
//
// A panic in doWorkPiece stops the remaining pieces and is raised again in the caller's
// goroutine once every worker has returned (so a piece under way that never returns keeps the
// call waiting), instead of crashing the process as client-go does by default.
func ParallelizeUntil(ctx context.Context, workers, pieces int, doWorkPiece func(piece int), chunkSize int) {
	if pieces == 0 {
		return
	}
	chunkSize = max(chunkSize, 1)
	chunks := chunkCount(pieces, chunkSize)
	if chunks < 0 {
		panic(fmt.Sprintf("workqueue: ParallelizeUntil: negative number of pieces %d", pieces))
	}
	if workers < 0 {
		panic(fmt.Sprintf("workqueue: ParallelizeUntil: negative number of workers %d", workers))
	}
	var stop <-chan struct{}
	if ctx != nil {
		stop = ctx.Done()
	}
	var (
		next   atomic.Int64 // the next chunk to hand out
		failed atomic.Bool
		fault  any
		once   sync.Once
		wg     sync.WaitGroup
	)
	for range min(workers, chunks) {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					failed.Store(true)
					once.Do(func() { fault = p })
				}
			}()
			for {
				chunk := int(next.Add(1) - 1)
				if chunk >= chunks {
					return
				}
				start := chunk * chunkSize
				for p := start; p < min(start+chunkSize, pieces); p++ {
					select {
					case <-stop:
						return
					default:
					}
					if failed.Load() {
						return
					}
					doWorkPiece(p)
				}
			}
		})
	}
	wg.Wait()
	if fault != nil {
		panic(fault)
	}
}

// chunkCount returns client-go's number of chunks, (pieces+chunkSize-1)/chunkSize for a
// chunkSize of at least 1, without the overflow of that sum for pieces near the largest int.
func chunkCount(pieces, chunkSize int) int {
	if pieces < 0 {
		return (pieces + chunkSize - 1) / chunkSize // the sum stays between pieces and chunkSize
	}
	chunks := pieces / chunkSize
	if pieces%chunkSize != 0 {
		chunks++
	}
	return chunks
}
