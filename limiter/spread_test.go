package limiter

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

// fixed is a random source whose Float64, through rand.New, is always the number it holds,
// which must be in [0, 1).
type fixed float64

func (f fixed) Uint64() uint64 { return uint64(float64(f) * (1 << 53)) }

// almostOne is the largest Float64 a source can yield.
const almostOne = fixed(1 - 1.0/(1<<53))

func TestJitteredExponential(t *testing.T) {
	jittered := func(factor float64, r fixed) RateLimiter[string] {
		return NewExponential[string](time.Second, 8*time.Second, JitterFactor(factor), RandomSource(r))
	}
	// A draw of 0 cuts nothing.
	run(t, jittered(0.5, 0), []step{
		{call: "when a", want: "1s"},
		{call: "when a", want: "2s"},
		{call: "when a", want: "4s"},
		{call: "when a", want: "8s"},
		{call: "when a", want: "8s"},
	})
	// A draw of 0.5 with a factor of 0.5 cuts a quarter, at the cap too.
	run(t, jittered(0.5, 0.5), []step{
		{call: "when a", want: "750ms"},
		{call: "when a", want: "1.5s"},
		{call: "when a", want: "3s"},
		{call: "when a", want: "6s"},
		{call: "when a", want: "6s"},
		{call: "requeues a", want: "5"},
		{call: "forget a", want: ""},
		{call: "when a", want: "750ms"},
	})
	// Full jitter with the largest draw leaves almost nothing, but never less than nothing.
	run(t, jittered(1, almostOne), []step{
		{call: "when a", want: "1ns"},
		{call: "when a", want: "1ns"},
		{call: "when a", want: "1ns"},
	})
	// A factor of zero is no jitter, whatever the draw.
	run(t, jittered(0, 0.75), []step{{call: "when a", want: "1s"}, {call: "when a", want: "2s"}})
}

func TestJitteredFastSlow(t *testing.T) {
	run(t, NewFastSlow[string](4*time.Second, time.Minute, 1, JitterFactor(1), RandomSource(fixed(0.25))), []step{
		{call: "when a", want: "3s"},
		{call: "when a", want: "45s"},
	})
}

func TestJitterBounds(t *testing.T) {
	// Extreme waits with extreme draws: the result is in (w - factor·w, w], exactly, and so
	// never negative. Above 2⁵³ ns a cut computed in float64 alone can pass the bound: with the
	// largest draw, 0.3 of 381966937290012707 ns and 0.1 or 0.2 of 4712806027443401227 ns do.
	waits := []time.Duration{0, 1, 2, 3, 5, 1 << 52, 1<<53 + 1, 381966937290012707, 6282595048769812054,
		4712806027443401227, 1<<62 - 1, math.MaxInt64 - 512, math.MaxInt64}
	for _, w := range waits {
		for _, factor := range []float64{0, 1e-9, 0.1, 0.2, 0.3, 0.5, 1 - 1e-16, 1} {
			for _, r := range []fixed{0, 0.5, almostOne} {
				s := spread{factor: factor, random: rand.New(r)}
				got := s.apply(w)
				cut := new(big.Rat).SetInt64(int64(w - got))
				bound := new(big.Rat).Mul(new(big.Rat).SetFloat64(factor), new(big.Rat).SetInt64(int64(w)))
				if got > w || (cut.Sign() > 0 && cut.Cmp(bound) >= 0) {
					t.Errorf("wait %d, factor %v, draw %v: got %d, a cut of %s; want less than %s",
						w, factor, float64(r), got, cut.FloatString(0), bound.FloatString(3))
				}
			}
		}
	}
	// Items that fail together, with the global source and with a seeded one: every wait in
	// (w/2, w] for a factor of 0.5, and spread over both halves of that range, at the cap too.
	for name, opts := range map[string][]Option{
		"global": {JitterFactor(0.5)},
		"seeded": {JitterFactor(0.5), RandomSource(rand.NewPCG(1, 2))},
	} {
		l := NewExponential[int](time.Second, 4*time.Second, opts...)
		for failures, w := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
			lower, upper := 0, 0
			for item := range 1000 {
				got := l.When(item)
				if got <= w/2 || got > w {
					t.Fatalf("%s: failure %d of item %d: waits %v, want it in (%v, %v]", name, failures+1, item, got, w/2, w)
				}
				if got < w*3/4 {
					lower++
				} else {
					upper++
				}
			}
			if lower < 400 || upper < 400 {
				t.Errorf("%s: failure %d: %d waits in the lower half, %d in the upper: not spread", name, failures+1, lower, upper)
			}
		}
	}
}
