package actor

import "github.com/actorqueue/workqueue/clock"

// Join lets a delaying queue with clock c share q's owner and delay heap, and reports whether
// it may: q must time its delays on c, and no delaying queue may serve its delay
// heap yet, neither q itself (built with Config.Delaying or Config.Forward) nor one that joined
// it before. Each delaying queue of client-go has a heap of its own, so a second one around q
// needs its own (see Delayer); only the first may use q's. When Join reports true, q records
// its delayed items from then on (see TrackDelayed). It is safe for simultaneous use: of
// several simultaneous callers, at most one is let in.
func (q *Queue[T]) Join(c clock.Clock) bool {
	if !clock.Same(c, q.alarmWith) || !q.served.CompareAndSwap(false, true) {
		return false
	}
	q.TrackDelayed() // its delay heap now holds the joiner's items
	return true
}
