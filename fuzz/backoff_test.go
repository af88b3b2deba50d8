package fuzz

import (
	"math"
	"testing"
	"time"

	"github.com/actorqueue/workqueue"
)

// FuzzBackoff steps a Backoff built from arbitrary numbers, and asks an exponential backoff
// manager for waits at instants that move back and forth, comparing both with apimachinery's
// algorithm (which this library follows, saturating where apimachinery overflows). Without
// jitter every wait and every field must match exactly; with jitter a wait d must lie within
// [d, d + Jitter·d]. From a valid start (no negative duration or factor), no wait may be
// negative, nor above (1+Jitter)·Cap once the start is within the cap.
func FuzzBackoff(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &input{data: data}
		if in.pick(2) == 0 {
			fuzzStep(t, in)
		} else {
			fuzzManager(t, in)
		}
	})
}

func fuzzStep(t *testing.T, in *input) {
	b := workqueue.Backoff{Duration: wild.delay(in), Factor: factor(in), Jitter: factor(in), Steps: wild.count(in), Cap: wild.delay(in)}
	want := b
	start := b
	for step := 0; step < 100 && !in.done(); step++ {
		got := b.Step()
		wait := referenceStep(&want)
		checkWait(t, start, b.Jitter, got, wait)
		if b != want {
			t.Fatalf("%+v: after step %d: %+v, want %+v", start, step, b, want)
		}
	}
}

func fuzzManager(t *testing.T, in *input) {
	initial, most, reset := wild.delay(in), wild.delay(in), wild.delay(in)
	growth, jitter := factor(in), factor(in)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := workqueue.NewExponentialBackoffManager(initial, most, reset, growth, jitter, frozen{now})
	want := workqueue.Backoff{Duration: initial, Factor: growth, Jitter: jitter, Steps: math.MaxInt32, Cap: most}
	start, last := want, now
	for step := 0; step < 100 && !in.done(); step++ {
		now = now.Add(time.Duration(in.int64() % int64(2*time.Hour)))
		if now.Sub(last) > reset {
			want.Duration, want.Steps = initial, math.MaxInt32
		}
		last = now
		got := m.(interface{ Next(time.Time) time.Duration }).Next(now)
		checkWait(t, start, jitter, got, referenceStep(&want))
	}
}

// factor decodes a factor for growth or jitter: edge values often, any number but NaN.
func factor(in *input) float64 {
	if in.pick(4) == 0 {
		if f := in.float64(); !math.IsNaN(f) {
			return f
		}
	}
	return choose(in, -1, 0, 0.1, 0.5, 1, 1.5, 2, 10, 1e300, math.Inf(1))
}

// referenceStep is apimachinery's Backoff.Step without the jitter, saturating where
// apimachinery's conversion overflows: it returns the wait before jitter and advances b.
func referenceStep(b *workqueue.Backoff) time.Duration {
	wait := b.Duration
	if b.Steps < 1 {
		return wait
	}
	b.Steps--
	if b.Factor != 0 {
		b.Duration = saturated(float64(b.Duration) * b.Factor)
		if b.Cap > 0 && b.Duration > b.Cap {
			b.Duration, b.Steps = b.Cap, 0
		}
	}
	return wait
}

// checkWait checks a wait got from a backoff that started as start, against the wait before
// jitter, want. Jitter adds r·jitter·want for some r in [0, 1), computed in float64 and
// truncated toward zero, so the added part lies exactly between zero and spread(want).
func checkWait(t *testing.T, start workqueue.Backoff, jitter float64, got, want time.Duration) {
	t.Helper()
	spread := func(d time.Duration) time.Duration { return saturated(max(jitter, 0) * float64(d)) }
	if jitter <= 0 {
		if got != want {
			t.Fatalf("%+v: wait %v, want %v", start, got, want)
		}
	} else if !between(got, want, saturatedSum(want, spread(want))) {
		t.Fatalf("%+v: wait %v, want %v jittered by at most %v of it", start, got, want, jitter)
	}
	if start.Duration < 0 || start.Factor < 0 {
		return // no promise from an invalid start
	}
	if got < 0 {
		t.Fatalf("%+v: negative wait %v", start, got)
	}
	if start.Cap > 0 && start.Duration <= start.Cap && got > saturatedSum(start.Cap, spread(start.Cap)) {
		t.Fatalf("%+v: wait %v above (1+Jitter)·Cap", start, got)
	}
}

// between reports whether x lies between the bounds a and b, in either order.
func between(x, a, b time.Duration) bool { return min(a, b) <= x && x <= max(a, b) }

// saturatedSum returns a + b, clamped to the range of Duration.
func saturatedSum(a, b time.Duration) time.Duration {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// saturated converts a number of nanoseconds to a Duration, clamped to the range of Duration;
// NaN, which only 0·∞ gives here, is zero.
func saturated(ns float64) time.Duration {
	switch {
	case math.IsNaN(ns):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// frozen is a clock stopped at one instant: the manager reads it once, when it is created.
type frozen struct{ now time.Time }

func (c frozen) Now() time.Time                       { return c.now }
func (c frozen) Since(t time.Time) time.Duration      { return c.now.Sub(t) }
func (c frozen) After(time.Duration) <-chan time.Time { return nil }
