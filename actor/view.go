package actor

import "sync/atomic"

// view is what the owner publishes of its queue at the end of each turn, once a caller has
// asked for Len or Superseded (see observe): the queue's length, the last reservation started, the
// items superseded, and how many commands it had applied. Len and Superseded answer from it,
// without a command and without waking the owner, whenever it is exact (see fresh); otherwise
// they ask the owner. Only the owner writes it; version is odd while it does, and while a panic
// kept since the last publish voids it (see void).
type view[T comparable] struct {
	version    atomic.Uint64
	valid      atomic.Bool // no panic waits for a caller, and the storage is the queue's own
	applied    atomic.Uint64
	length     atomic.Int64
	started    atomic.Uint64
	superseded atomic.Pointer[map[T]struct{}] // nil until kept; the map is never changed once published
}

// observe makes the owner publish its view from its next turn on, and, when superseded, keep the
// set of superseded items in it. A queue with a custom storage publishes none: its Len is the
// storage's own code, which client-go calls in Len, and whose panic must reach the caller.
func (q *Queue[T]) observe(superseded bool) {
	if q.custom {
		return
	}
	if superseded && !q.tracking.Load() {
		q.tracking.Store(true)
	}
	if !q.watching.Load() {
		q.mailbox.watch()
		q.watching.Store(true)
	}
}

// publish writes the view, at the end of a turn, once watched.
func (q *Queue[T]) publish() {
	if !q.watching.Load() {
		return
	}
	if !q.tracked && q.tracking.Load() {
		q.core.TrackSuperseded()
		q.tracked = true
	}
	v := &q.view
	if v.version.Load()&1 == 0 { // odd already if a panic kept since voided it (see void)
		v.version.Add(1)
	}
	v.valid.Store(q.stash == nil)
	v.applied.Store(q.applied)
	v.length.Store(int64(q.core.Len()))
	if q.ready != nil {
		v.started.Store(q.fifo.Started())
	}
	if q.tracked {
		if set, changed := q.core.SupersededSet(); changed {
			if len(set) == 0 {
				set = nil
			}
			v.superseded.Store(&set)
		}
	}
	v.version.Add(1)
}

// void makes the view unusable until the next publish: a panic kept for the next caller that
// waits must reach a Len or Superseded that starts after it.
func (q *Queue[T]) void() {
	if v := q.view.version.Load(); v != 0 && v&1 == 0 {
		q.view.version.Add(1)
	}
}

// fresh returns the queue's length and its superseded items (nil until the owner keeps them) as
// the view has them, and true, if the view is exact: the owner had applied every command put
// when the caller looked.
//
// The view's state is that after its commands, and the items taken from ready since count
// as taken (the view counts reserved items as waiting, as the owner does). The caller reads the
// view, then the watermark of takes, then the count of commands put: if the owner had applied
// them all, no command was put between the view and that count, so the answer is the queue's
// length at the instant the watermark was read, every call that returned before counted (a
// getter waiting in the owner is answered in a turn that applies a command, after which the
// view is published again). Read the other way round, a command put after the count and a take
// after it could be ordered with the take counted and the command not.
func (q *Queue[T]) fresh() (length int, superseded *map[T]struct{}, ok bool) {
	v := &q.view
	seq := v.version.Load()
	if seq == 0 || seq&1 == 1 {
		return 0, nil, false
	}
	valid, applied, n, started, set := v.valid.Load(), v.applied.Load(), v.length.Load(), v.started.Load(), v.superseded.Load()
	if v.version.Load() != seq || !valid {
		return 0, nil, false
	}
	taken := q.taken.Load()
	if applied < q.mailbox.sent.Load() {
		return 0, nil, false
	}
	if q.ready != nil && taken > started {
		// Reservations taken from ready since the view. A getter answered by the owner once the
		// queue shuts down starts an item without raising the watermark: then none is newer.
		n -= int64(taken - started)
	}
	return int(n), set, true
}
