package actor

import "github.com/actorqueue/workqueue/clock"

// OnClock reports whether q times its delays on c, nil standing for the real clock: whether a
// delaying queue built around q with clock c may share q's owner.
func (q *Queue[T]) OnClock(c clock.Clock) (same bool) {
	if c == nil || q.alarmWith == nil {
		return c == nil && q.alarmWith == nil
	}
	defer func() {
		if recover() != nil {
			same = false // clocks of a type that cannot be compared are not the same
		}
	}()
	return c == q.alarmWith
}

// Join lets a delaying queue with clock c share q's owner and delay heap, and reports whether
// it may: q must time its delays on c (see OnClock), and no delaying queue may serve its delay
// heap yet, neither q itself (built with Config.Delaying or Config.Forward) nor one that joined
// it before. Each delaying queue of client-go has a heap of its own, so a second one around q
// needs its own (see Delayer); only the first may use q's. When Join reports true, q records
// its delayed items from then on (see TrackDelayed). It is safe for simultaneous use: of
// several simultaneous callers, at most one is let in.
func (q *Queue[T]) Join(c clock.Clock) bool {
	if !q.OnClock(c) || !q.served.CompareAndSwap(false, true) {
		return false
	}
	q.TrackDelayed() // its delay heap now holds the joiner's items
	return true
}
