package main

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	cases := []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7, 7, 1, 100, 7}, 7},
	}
	for _, c := range cases {
		in := append([]float64(nil), c.in...)
		if got := median(in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("median reordered its input: %v, was %v", in, c.in)
			}
		}
	}
	if got := median(nil); !math.IsNaN(got) {
		t.Errorf("median(nil) = %v, want NaN", got)
	}
}

func TestAdvantage(t *testing.T) {
	cases := []struct {
		name       string
		ours, peer float64
		b          better
		want       float64
	}{
		{"twice the throughput", 200, 100, higherIsBetter, 2},
		{"half the throughput", 50, 100, higherIsBetter, 0.5},
		{"a quarter of the latency", 25, 100, lowerIsBetter, 4},
		{"four times the bytes", 400, 100, lowerIsBetter, 0.25},
		{"no goroutine against one", 0, 1, lowerIsBetter, math.Inf(1)},
		{"one goroutine against none", 1, 0, lowerIsBetter, 0},
		{"none against none", 0, 0, lowerIsBetter, 1},
	}
	for _, c := range cases {
		if got := advantage(c.ours, c.peer, c.b); got != c.want {
			t.Errorf("%s: advantage(%v, %v) = %v, want %v", c.name, c.ours, c.peer, got, c.want)
		}
	}
	if got := advantage(math.NaN(), 1, higherIsBetter); !math.IsNaN(got) {
		t.Errorf("advantage of n/a = %v, want NaN", got)
	}
}

func TestRoundAdvantagePairsRounds(t *testing.T) {
	// Round by round: 100/50 = 2, 90/90 = 1, 120/40 = 3. Comparing medians (100 against 50)
	// would give 2 as well, but the extremes only come from pairing the rounds.
	got := roundAdvantage([]float64{100, 90, 120}, []float64{50, 90, 40}, higherIsBetter)
	want := spread{median: 2, min: 1, max: 3}
	if got != want {
		t.Errorf("roundAdvantage = %+v, want %+v", got, want)
	}
	lat := roundAdvantage([]float64{10, 20}, []float64{30, 20}, lowerIsBetter)
	if want := (spread{median: 2, min: 1, max: 3}); lat != want {
		t.Errorf("roundAdvantage of latencies = %+v, want %+v", lat, want)
	}
	if got := roundAdvantage([]float64{1, 2}, []float64{1}, higherIsBetter); !math.IsNaN(got.median) {
		t.Errorf("roundAdvantage of unequal rounds = %+v, want NaN", got)
	}
}
