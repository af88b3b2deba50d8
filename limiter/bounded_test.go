package limiter

import (
	"math"
	"testing"
	"time"
)

// The default window of NewExponential(time.Second, 4*time.Second): its maximum delay plus
// one hour.
const window = 4*time.Second + time.Hour

func TestRetriedItemIsNeverForgottenByDefault(t *testing.T) {
	// Each retry fails again as late as a queue can make it within the default: after its
	// wait, then an hour queued and processing. The count goes on as in client-go.
	const h = time.Hour
	run(t, NewExponential[string](time.Second, 4*time.Second), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "when a", at: 1*time.Second + 1*h, want: "2s"},
		{call: "when a", at: 3*time.Second + 2*h, want: "4s"},
		{call: "when a", at: 7*time.Second + 3*h, want: "4s"},
		{call: "when b", at: 11*time.Second + 4*h, want: "1s"}, // exactly the window after a's last failure
		{call: "requeues a", want: "4"},
		{call: "when a", at: 11*time.Second + 4*h, want: "4s"},
		{call: "requeues a", want: "5"},
	})
	run(t, NewFastSlow[string](time.Second, 4*time.Second, 2), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "when a", at: 1*time.Second + 1*h, want: "1s"},
		{call: "when a", at: 2*time.Second + 2*h, want: "4s"},
		{call: "when a", at: 6*time.Second + 3*h, want: "4s"},
		{call: "when a", at: 10*time.Second + 4*h, want: "4s"},
		{call: "requeues a", want: "5"},
	})
}

func TestAbandonedItemIsForgottenAfterTheWindow(t *testing.T) {
	run(t, NewExponential[string](time.Second, 4*time.Second), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "when a", at: time.Second, want: "2s"},
		{call: "when b", at: time.Second + window, want: "1s"}, // a is exactly window old: kept
		{call: "requeues a", want: "2"},
		{call: "tracked", want: "2"},
		{call: "when b", at: time.Second + window + 1, want: "2s"}, // a is past it: forgotten
		{call: "requeues a", want: "0"},
		{call: "tracked", want: "1"},
		{call: "when a", at: time.Second + window + 1, want: "1s"}, // and starts over
	})
	// An item that fails again after the window starts over too, even with nothing else
	// failing in between.
	run(t, NewFastSlow[string](time.Second, time.Minute, 1), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "when a", at: time.Second, want: "1m0s"},
		{call: "when a", at: time.Second + time.Minute + time.Hour + 1, want: "1s"},
		{call: "requeues a", want: "1"},
	})
}

func TestForgetAfter(t *testing.T) {
	run(t, NewExponential[string](time.Second, time.Hour, ForgetAfter(10*time.Second)), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "when b", at: 5 * time.Second, want: "1s"},
		{call: "when a", at: 10 * time.Second, want: "2s"}, // a is renewed: its window restarts
		{call: "when c", at: 15*time.Second + 1, want: "1s"},
		{call: "requeues b", want: "0"},
		{call: "requeues a", want: "2"},
		{call: "tracked", want: "2"},
		{call: "forget a", want: ""},
		{call: "tracked", want: "1"},
		{call: "when c", at: 26 * time.Second, want: "1s"}, // c itself had expired
		{call: "tracked", want: "1"},
	})
	// An item forgotten, then failing again, is counted afresh: its old failure takes nothing
	// with it when it expires.
	run(t, NewFastSlow[string](time.Second, time.Minute, 1, ForgetAfter(10*time.Second)), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "forget a", want: ""},
		{call: "when a", at: 5 * time.Second, want: "1s"},
		{call: "when b", at: 11 * time.Second, want: "1s"},
		{call: "requeues a", want: "1"},
		{call: "when a", at: 11 * time.Second, want: "1m0s"},
		{call: "tracked", want: "2"},
	})
	// Zero never forgets, as client-go; later options override earlier ones.
	run(t, NewExponential[string](time.Second, time.Hour, ForgetAfter(time.Second), ForgetAfter(0)), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "when b", at: 1000 * time.Hour, want: "1s"},
		{call: "requeues a", want: "1"},
		{call: "when a", at: 2000 * time.Hour, want: "2s"},
	})
	// A maximum delay near the largest Duration makes the default window saturate, not wrap.
	run(t, NewExponential[string](time.Second, math.MaxInt64), []step{
		{call: "when a", at: 0, want: "1s"},
		{call: "when b", at: 100_000 * time.Hour, want: "1s"},
		{call: "requeues a", want: "1"},
	})
}

func TestTimeNeverRunsBackwards(t *testing.T) {
	// b fails at an instant earlier than one already seen: it counts as failing at that latest
	// instant, so it expires ten seconds after it and not before.
	run(t, NewExponential[string](time.Second, time.Hour, ForgetAfter(10*time.Second)), []step{
		{call: "when a", at: 100 * time.Second, want: "1s"},
		{call: "when b", at: 0, want: "1s"},
		{call: "forget a", want: ""},
		{call: "when c", at: 110 * time.Second, want: "1s"},
		{call: "requeues b", want: "1"},
		{call: "when c", at: 110*time.Second + 1, want: "2s"},
		{call: "requeues b", want: "0"},
		{call: "tracked", want: "1"},
	})
}

func TestMaxTrackedEvictsTheLeastRecentlyFailed(t *testing.T) {
	run(t, NewExponential[string](time.Second, time.Hour, MaxTracked(2)), []step{
		{call: "when a", want: "1s"},
		{call: "when b", want: "1s"},
		{call: "when a", want: "2s"}, // a failed after b now
		{call: "when c", want: "1s"}, // full: b goes
		{call: "requeues b", want: "0"},
		{call: "requeues a", want: "2"},
		{call: "requeues c", want: "1"},
		{call: "tracked", want: "2"},
		{call: "when c", want: "2s"}, // tracked already: nothing goes
		{call: "requeues a", want: "2"},
		{call: "when b", want: "1s"}, // b starts over, and a goes
		{call: "requeues a", want: "0"},
		{call: "tracked", want: "2"},
	})
	run(t, NewFastSlow[string](time.Second, time.Minute, 1, MaxTracked(1)), []step{
		{call: "when a", want: "1s"},
		{call: "when a", want: "1m0s"},
		{call: "when b", want: "1s"},
		{call: "when a", want: "1s"},
		{call: "tracked", want: "1"},
	})
}

func TestMemoryStaysBoundedUnderDistinctFailingKeys(t *testing.T) {
	// One new key fails every second and is never retried nor forgotten, for three hours.
	const keys = 3 * 3600
	tests := []struct {
		name string
		l    interface {
			RateLimiter[int]
			Tracked() int
		}
		want int // the most items tracked at once
	}{
		// The default window is 1s + 1h: the keys of the last 3601 seconds, and the one failing
		// now.
		{"exponential default", NewExponential[int](time.Millisecond, time.Second), 3602},
		{"fast-slow default", NewFastSlow[int](time.Millisecond, time.Second, 3), 3602},
		{"a minute", NewExponential[int](time.Millisecond, time.Second, ForgetAfter(time.Minute)), 61},
		{"cap", NewExponential[int](time.Millisecond, time.Second, MaxTracked(100)), 100},
		{"cap under the window", NewFastSlow[int](time.Millisecond, time.Second, 3, MaxTracked(10), ForgetAfter(time.Minute)), 10},
		{"client-go", NewExponential[int](time.Millisecond, time.Second, ForgetAfter(0)), keys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			most := 0
			for k := range keys {
				WhenAt(tt.l, k, t0.Add(time.Duration(k)*time.Second))
				most = max(most, tt.l.Tracked())
			}
			if most != tt.want || tt.l.Tracked() != tt.want {
				t.Errorf("tracked at most %d, %d at the end; want %d", most, tt.l.Tracked(), tt.want)
			}
			// What is tracked is exactly what NumRequeues counts.
			counted := 0
			for k := range keys {
				counted += tt.l.NumRequeues(k)
			}
			if counted != tt.l.Tracked() {
				t.Errorf("NumRequeues counts %d failures, %d items tracked", counted, tt.l.Tracked())
			}
		})
	}
}

// A NaN is never equal to itself, so no limiter can find its failures again. Its waits are the
// ones client-go gives it (the first failure's, every time: with fast-slow, the fast delay even
// for no fast attempts), and a bounded limiter keeps nothing of it, so it neither grows nor
// pushes other items out. (Kept until Forget, as in client-go, each failure of a NaN stays in
// the map for good, as it does there.)
func TestNaNItems(t *testing.T) {
	const clientGo = "kept until Forget (client-go's)"
	nan := math.NaN()
	for memory, o := range map[string][]Option{
		clientGo:             {ForgetAfter(0)},
		"the default window": nil,
		"MaxTracked(1)":      {MaxTracked(1)},
	} {
		exponential := NewExponential[float64](time.Second, time.Hour, o...)
		fastSlow := NewFastSlow[float64](time.Second, time.Minute, 0, o...)
		WhenAt(exponential, 1, t0)
		WhenAt(fastSlow, 1, t0)
		for range 3 {
			if got := WhenAt(exponential, nan, t0); got != time.Second {
				t.Errorf("%s: exponential waits %v for NaN, want 1s", memory, got)
			}
			if got := WhenAt(fastSlow, nan, t0); got != time.Second {
				t.Errorf("%s: fast-slow waits %v for NaN, want the fast 1s", memory, got)
			}
		}
		for name, l := range map[string]RateLimiter[float64]{"exponential": exponential, "fast-slow": fastSlow} {
			if got := l.NumRequeues(nan); got != 0 {
				t.Errorf("%s: %s counts %d failures of NaN, want 0", memory, name, got)
			}
			if got := l.NumRequeues(1); got != 1 {
				t.Errorf("%s: %s counts %d failures of 1 after NaN's, want 1", memory, name, got)
			}
			if got := l.(interface{ Tracked() int }).Tracked(); got != 1 && memory != clientGo {
				t.Errorf("%s: %s tracks %d items, want 1: NaN's failures are kept", memory, name, got)
			}
		}
	}
}
