package workqueue

import (
	"context"

	"github.com/actorqueue/workqueue/internal/parallel"
)

// DoWorkPieceFunc does one piece of work.
type DoWorkPieceFunc func(piece int)

type options struct {
	chunkSize int
}

// Options configures ParallelizeUntil.
type Options func(*options)

// WithChunkSize hands pieces to workers c at a time instead of one by one, which pays off when
// pieces are many and small.
func WithChunkSize(c int) func(*options) {
	return func(o *options) { o.chunkSize = c }
}

// ParallelizeUntil calls doWorkPiece for every piece from 0 to pieces-1 on up to workers
// goroutines and returns when all are done, or early, skipping the pieces not yet started, when
// ctx is done. A panic in doWorkPiece stops the pieces not yet started and is raised in the
// caller's goroutine once the pieces under way have returned.
//
// Zero workers or zero pieces run nothing. Negative counts panic, with a message that starts
// with "workqueue: ParallelizeUntil:", where client-go's ParallelizeUntil panics and only
// there: zero pieces return at once even with negative workers, and negative pieces panic only
// if they make a negative number of chunks, as -1 does in chunks of 1 but not of 2.
func ParallelizeUntil(ctx context.Context, workers, pieces int, doWorkPiece DoWorkPieceFunc, opts ...Options) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	parallel.ParallelizeUntil(ctx, workers, pieces, doWorkPiece, o.chunkSize)
}
