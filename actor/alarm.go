package actor

import (
	"time"

	"github.com/actorqueue/workqueue/clock"
)

// alarm is the owner's one timer. It is armed for an instant and fires once; a nil channel
// while disarmed switches its select case off. With the real clock it is a single time.Timer,
// re-armed with Reset; with an injected clock, each arming asks the clock's After for a new
// channel, since that is all a Clock offers.
type alarm struct {
	clock clock.Clock // nil: the real clock
	timer *time.Timer
	c     <-chan time.Time
	at    time.Time // the instant armed for; zero when disarmed
}

// set arms the alarm for the instant at, or disarms it when at is zero. Arming for the instant
// it is already armed for changes nothing.
func (a *alarm) set(at time.Time) {
	if at.Equal(a.at) {
		return
	}
	switch {
	case at.IsZero():
		if a.timer != nil {
			a.timer.Stop()
		}
		a.c = nil
	case a.clock != nil:
		a.c = a.clock.After(at.Sub(a.clock.Now()))
		// A fake clock stepped between Now and After registers the wait too late: look again.
		if !a.clock.Now().Before(at) {
			now := make(chan time.Time, 1)
			now <- at
			a.c = now
		}
	case a.timer == nil:
		a.timer = time.NewTimer(time.Until(at))
		a.c = a.timer.C
	default:
		a.timer.Reset(time.Until(at))
		a.c = a.timer.C
	}
	a.at = at // once armed: a clock whose After ends the goroutine leaves the alarm to arm again
}

// fired records that the alarm's channel delivered: it is disarmed.
func (a *alarm) fired() {
	a.at, a.c = time.Time{}, nil
}

// stop releases the timer.
func (a *alarm) stop() { a.set(time.Time{}) }
