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
