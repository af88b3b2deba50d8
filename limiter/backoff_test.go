package limiter

import (
	"math"
	"testing"
	"testing/synctest"
	"time"
)

func TestBackoffStep(t *testing.T) {
	tests := []struct {
		name    string
		backoff Backoff
		random  float64
		want    []time.Duration
		after   Backoff // the backoff after the steps
	}{
		{
			name:    "grows by the factor while steps last",
			backoff: Backoff{Duration: time.Second, Factor: 2, Steps: 3},
			want:    []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second},
			after:   Backoff{Duration: 8 * time.Second, Factor: 2, Steps: 0},
		},
		{
			name:    "capped: duration stops at the cap and steps end",
			backoff: Backoff{Duration: time.Second, Factor: 3, Steps: 10, Cap: 5 * time.Second},
			want:    []time.Duration{time.Second, 3 * time.Second, 5 * time.Second, 5 * time.Second},
			after:   Backoff{Duration: 5 * time.Second, Factor: 3, Steps: 0, Cap: 5 * time.Second},
		},
		{
			name:    "jitter adds up to jitter·duration and does not accumulate",
			backoff: Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Steps: 2},
			random:  0.5,
			want:    []time.Duration{1250 * time.Millisecond, 2500 * time.Millisecond, 5 * time.Second},
			after:   Backoff{Duration: 4 * time.Second, Factor: 2, Jitter: 0.5, Steps: 0},
		},
		{
			name:    "no factor: constant",
			backoff: Backoff{Duration: time.Second, Steps: 5},
			want:    []time.Duration{time.Second, time.Second},
			after:   Backoff{Duration: time.Second, Steps: 3},
		},
		{
			name:    "without a cap, growth saturates instead of turning negative",
			backoff: Backoff{Duration: math.MaxInt64 / 2, Factor: 4, Steps: 3},
			want:    []time.Duration{math.MaxInt64 / 2, math.MaxInt64, math.MaxInt64},
			after:   Backoff{Duration: math.MaxInt64, Factor: 4, Steps: 0},
		},
		{
			name:    "jitter adds to a duration beyond float64's precision without rounding it",
			backoff: Backoff{Duration: 1<<62 + 1, Jitter: 1e-30, Steps: 1},
			random:  0.5,
			want:    []time.Duration{1<<62 + 1},
			after:   Backoff{Duration: 1<<62 + 1, Jitter: 1e-30},
		},
		{
			name:    "the jitter of a negative duration saturates at the bottom",
			backoff: Backoff{Duration: math.MinInt64 + 1, Jitter: 1},
			random:  0.99,
			want:    []time.Duration{math.MinInt64},
			after:   Backoff{Duration: math.MinInt64 + 1, Jitter: 1},
		},
		{
			name:    "jitter saturates too",
			backoff: Backoff{Duration: math.MaxInt64, Jitter: 1},
			random:  0.99,
			want:    []time.Duration{math.MaxInt64},
			after:   Backoff{Duration: math.MaxInt64, Jitter: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.backoff
			for i, want := range tt.want {
				if got := b.step(func() float64 { return tt.random }); got != want {
					t.Errorf("step %d: got %v, want %v", i, got, want)
				}
			}
			if b != tt.after {
				t.Errorf("after the steps: %+v, want %+v", b, tt.after)
			}
		})
	}
	var nilBackoff *Backoff
	if got := nilBackoff.Step(); got != 0 {
		t.Errorf("nil Backoff stepped %v", got)
	}
}

func TestJitterStaysInRange(t *testing.T) {
	for range 1000 {
		if got := Jitter(time.Second, 0.25); got < time.Second || got >= 1250*time.Millisecond {
			t.Fatalf("Jitter(1s, 0.25) = %v", got)
		}
		if got := Jitter(time.Second, 0); got < time.Second || got >= 2*time.Second {
			t.Fatalf("Jitter(1s, 0) = %v", got)
		}
	}
}

func TestExponentialManagerResets(t *testing.T) {
	m := NewExponentialBackoffManager(time.Second, 10*time.Second, time.Minute, 2, 0, fixedClock{t0})
	steps := []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, time.Second},
		{time.Second, 2 * time.Second},
		{3 * time.Second, 4 * time.Second},
		{7 * time.Second, 8 * time.Second},
		{15 * time.Second, 10 * time.Second}, // capped
		{25 * time.Second, 10 * time.Second},
		{25*time.Second + time.Minute, 10 * time.Second},  // exactly resetDuration later: no reset
		{25*time.Second + 2*time.Minute + 1, time.Second}, // more than resetDuration later: reset
		{26*time.Second + 2*time.Minute, 2 * time.Second},
	}
	for i, s := range steps {
		if got := m.Next(t0.Add(s.at)); got != s.want {
			t.Errorf("step %d at %v: got %v, want %v", i, s.at, got, s.want)
		}
	}
}

func TestBackoffUntil(t *testing.T) {
	for _, sliding := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			stop := make(chan struct{})
			var calls []time.Duration
			m := NewExponentialBackoffManager(time.Second, 4*time.Second, time.Hour, 2, 0, nil)
			BackoffUntil(func() {
				calls = append(calls, time.Since(start))
				time.Sleep(100 * time.Millisecond) // f takes time
				if len(calls) == 5 {
					close(stop)
				}
			}, m, sliding, stop)
			// Waits of 1s, 2s, 4s, 4s. With sliding, each starts after f's 100ms; without, f's
			// time is part of it.
			want := []time.Duration{0, 1100, 3200, 7300, 11400}
			if !sliding {
				want = []time.Duration{0, 1000, 3000, 7000, 11000}
			}
			for i := range want {
				want[i] *= time.Millisecond
			}
			if len(calls) != len(want) {
				t.Fatalf("sliding=%v: %d calls, want %d", sliding, len(calls), len(want))
			}
			for i := range want {
				if calls[i] != want[i] {
					t.Errorf("sliding=%v: call %d at %v, want %v", sliding, i, calls[i], want[i])
				}
			}
		})
	}
}

func TestBackoffUntilStopped(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	BackoffUntil(func() { t.Error("f called after stop") }, NewExponentialBackoffManager(time.Second, time.Second, time.Second, 1, 0, nil), true, stop)
}

// fixedClock is a Clock frozen at one instant; Next takes the time as an argument anyway.
type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time                       { return c.now }
func (c fixedClock) Since(t time.Time) time.Duration      { return c.now.Sub(t) }
func (c fixedClock) After(time.Duration) <-chan time.Time { return nil }
