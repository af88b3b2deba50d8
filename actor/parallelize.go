package actor

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// ParallelizeUntil calls doWorkPiece(p) for every p from 0 to pieces-1 on up to workers
// goroutines, handing out pieces in chunks of chunkSize (at least 1), and returns when all are
// done. Once ctx is done (a nil ctx never is), pieces not yet started are skipped. With zero
// workers nothing runs, as in client-go; a negative count panics.
//
// A panic in doWorkPiece stops the remaining pieces and is raised again in the caller's
// goroutine once every worker has returned, instead of crashing the process as client-go does.
func ParallelizeUntil(ctx context.Context, workers, pieces int, doWorkPiece func(piece int), chunkSize int) {
	if workers < 0 {
		panic(fmt.Sprintf("workqueue: ParallelizeUntil: negative number of workers %d", workers))
	}
	if pieces <= 0 {
		return
	}
	chunkSize = max(chunkSize, 1)
	chunks := pieces / chunkSize
	if pieces%chunkSize != 0 {
		chunks++
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
