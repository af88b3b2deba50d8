// Package clock is the notion of time shared by the queues, the limiters and the metrics.
//
// A queue needs three things from a clock: the current instant, the time elapsed since an
// instant, and a channel that fires after a duration. [Clock] asks for exactly those, with the
// same method signatures as k8s.io/utils/clock, so its real clock and its fake clocks satisfy
// [Clock] without any adapter: code that handed client-go a testingclock.FakeClock keeps
// compiling and behaving the same.
package clock

import "time"

// Clock tells the time and waits for it. Implementations must be safe for simultaneous use by
// multiple goroutines.
type Clock interface {
	// Now returns the current instant.
	Now() time.Time
	// Since returns the time elapsed since t.
	Since(t time.Time) time.Duration
	// After returns a channel that receives the current instant once d has elapsed.
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock of package time. Its zero value is ready to use. Inside a
// testing/synctest bubble it reads the bubble's fake clock, as package time does.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Since returns time.Since(t).
func (Real) Since(t time.Time) time.Duration { return time.Since(t) }

// After returns time.After(d).
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// OrReal returns c, or [Real] when c is nil.
func OrReal(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}

// Same reports whether a and b are the same clock, nil standing for the real one. Clocks of a
// type that cannot be compared are never the same.
func Same(a, b Clock) (same bool) {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
