package timing

import (
	"strings"
	"testing"
	"time"
)

func TestDurations(t *testing.T) {
	defaults := Durations{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second, MaxClockDrift: 0.1}
	for i, s := range []struct {
		d                     Durations
		window, budget, grace time.Duration
	}{
		{defaults, 13636363636, 1636363636, 6 * time.Second},
		{subSecond, 1818181818, 368181818, 750 * ms},
		{Durations{LeaseDuration: 11 * time.Second, RenewDeadline: 6 * time.Second, RetryPeriod: 2 * time.Second, MaxClockDrift: 0.1},
			10 * time.Second, 2 * time.Second, 6 * time.Second},
	} {
		if got := s.d.HoldWindow(); got != s.window {
			t.Errorf("step %d: got window %v, want %v", i, got, s.window)
		}
		if got := s.d.DrainBudget(); got != s.budget {
			t.Errorf("step %d: got budget %v, want %v", i, got, s.budget)
		}
		if got := s.d.Grace(); got != s.grace {
			t.Errorf("step %d: got grace %v, want %v", i, got, s.grace)
		}
		if err := s.d.Check(); err != nil {
			t.Errorf("step %d: %v", i, err)
		}
	}
}

func TestCheck(t *testing.T) {
	for name, change := range map[string]func(*Durations){
		"LeaseDuration":           func(d *Durations) { d.LeaseDuration = 1500 * ms },
		"RenewDeadline":           func(d *Durations) { d.RenewDeadline = d.LeaseDuration },
		"RetryPeriod":             func(d *Durations) { d.RetryPeriod = 9 * time.Second },
		"MaxClockDrift":           func(d *Durations) { d.MaxClockDrift = 1 },
		"leaves no time to drain": func(d *Durations) { d.RenewDeadline = 13 * time.Second },
		"RenewDeadline is 1s with RetryPeriod 250ms": func(d *Durations) {
			d.LeaseDuration, d.RenewDeadline, d.RetryPeriod = 2*time.Second, time.Second, 250*time.Millisecond
		},
	} {
		d := Durations{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second, MaxClockDrift: 0.1}
		change(&d)
		err := d.Check()
		if err == nil || !strings.HasPrefix(err.Error(), "sharding: ") || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v, want a sharding: error naming it", name, err)
		}
	}
}
