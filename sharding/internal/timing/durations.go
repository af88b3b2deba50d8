package timing

import (
	"fmt"
	"time"
)

// Durations are a sharder's Lease durations (sharding.Config's, defaulted), from which every
// other duration of the rules derives.
type Durations struct {
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	MaxClockDrift float64 // 0.1: one replica's clock runs at most 1.1 times as fast as another's
}

// electorJitter is client-go's leaderelection.JitterFactor: its elector refuses a
// RenewDeadline not above RetryPeriod times it.
const electorJitter = 1.2

// HoldWindow is how long after the first write of the record the others see began this
// replica may still act on the bucket: another replica takes it over only once LeaseDuration
// has passed on its clock since it saw the record, and while that much passes there, at least
// LeaseDuration/(1+MaxClockDrift) passes here.
func (d Durations) HoldWindow() time.Duration {
	return time.Duration(float64(d.LeaseDuration) / (1 + d.MaxClockDrift))
}

// DrainBudget is how long before the end of the hold window the keys' contexts end: the time
// a reconcile has to stop, HoldWindow − RenewDeadline − RetryPeriod. The keys' end is then
// RenewDeadline + RetryPeriod after the write the window counts from began, when client-go's
// elector reports a loss if its answers are prompt.
func (d Durations) DrainBudget() time.Duration {
	return d.HoldWindow() - d.RenewDeadline - d.RetryPeriod
}

// Grace is how long a free bucket waits for a replica below its fair share, or for the
// replica it was handed to, before any replica may take it: three attempts of theirs.
func (d Durations) Grace() time.Duration { return 3 * d.RetryPeriod }

// Check returns an error, with a "sharding:" message naming the Config field, if d breaks a
// rule: LeaseDuration a whole number of seconds (a Lease records seconds), RenewDeadline in
// (0, LeaseDuration) and above client-go's jitter factor times RetryPeriod, MaxClockDrift in
// [0, 1), a positive drain budget, and, with a RetryPeriod under a second, a RenewDeadline
// over a second.
//
// That last rule keeps a healthy replica's keys' contexts open. renewTime has whole seconds,
// so with sub-second retries the record the others see changes at most once a second, by the
// first renewal of each second; that renewal may start up to a second and a renewal period
// (RetryPeriod and a round trip) after the one the window counts from, and it moves the keys'
// end only once answered, another round trip on. The keys' end, RenewDeadline + RetryPeriod
// after the first, therefore comes first unless RenewDeadline exceeds a second by two round
// trips to the API server: with RenewDeadline at most a second, no round trip is short enough.
// With a RetryPeriod of a second or more, every renewal writes a new record (and client-go
// wants RenewDeadline above 1.2 s anyway).
func (d Durations) Check() error {
	switch {
	case d.LeaseDuration < time.Second || d.LeaseDuration%time.Second != 0:
		return fmt.Errorf("sharding: Config.LeaseDuration is %v, want a whole number of seconds, as a Lease records it", d.LeaseDuration)
	case d.RenewDeadline <= 0 || d.RenewDeadline >= d.LeaseDuration:
		return fmt.Errorf("sharding: Config.RenewDeadline is %v, want it in (0, LeaseDuration %v)", d.RenewDeadline, d.LeaseDuration)
	case d.RetryPeriod <= 0 || float64(d.RenewDeadline) <= electorJitter*float64(d.RetryPeriod):
		return fmt.Errorf("sharding: Config.RetryPeriod is %v, want it positive and RenewDeadline %v above %v times it, as client-go's leader election does",
			d.RetryPeriod, d.RenewDeadline, electorJitter)
	case d.MaxClockDrift < 0 || d.MaxClockDrift >= 1:
		return fmt.Errorf("sharding: Config.MaxClockDrift is %v, want it in [0, 1)", d.MaxClockDrift)
	case d.DrainBudget() <= 0:
		return fmt.Errorf("sharding: Config leaves no time to drain a lost bucket: LeaseDuration/(1+MaxClockDrift) = %v must exceed RenewDeadline+RetryPeriod = %v",
			d.HoldWindow(), d.RenewDeadline+d.RetryPeriod)
	case d.RetryPeriod < time.Second && d.RenewDeadline <= time.Second:
		return fmt.Errorf("sharding: Config.RenewDeadline is %v with RetryPeriod %v: with a RetryPeriod under a second, want RenewDeadline above 1s by two round trips to the API server, as a Lease's renewTime has whole seconds and its record changes at most once a second",
			d.RenewDeadline, d.RetryPeriod)
	}
	return nil
}
