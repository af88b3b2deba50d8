package main

import (
	"math"
	"slices"
)

// better tells which way a row's figure improves.
type better int

const (
	higherIsBetter better = iota // throughput
	lowerIsBetter                // latency, bytes, goroutines, wake-ups, allocations
)

// median returns the median of values (the mean of the two middle ones for an even count), or
// NaN for none. values is not modified.
func median(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	sorted := slices.Sorted(slices.Values(values))
	mid := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[mid]
	}
	return (sorted[mid-1] + sorted[mid]) / 2
}

// advantage returns how many times better ours is than peer: ours/peer when higher is better,
// peer/ours when lower is better. Above 1, ours is ahead. When the divisor is 0, it is +Inf
// (ours is infinitely ahead), or 1 if both are 0. NaN in, NaN out.
func advantage(ours, peer float64, b better) float64 {
	num, den := ours, peer
	if b == lowerIsBetter {
		num, den = peer, ours
	}
	switch {
	case math.IsNaN(num) || math.IsNaN(den):
		return math.NaN()
	case den == 0 && num == 0:
		return 1
	case den == 0:
		return math.Inf(1)
	}
	return num / den
}

// spread is a ratio over rounds: the median of the rounds' ratios and their extremes.
type spread struct {
	median, min, max float64
}

// roundAdvantage pairs the rounds of ours and peer (round i with round i: they ran back to
// back) and summarizes their advantages. NaN if either has no rounds or the counts differ.
func roundAdvantage(ours, peer []float64, b better) spread {
	if len(ours) == 0 || len(ours) != len(peer) {
		return spread{math.NaN(), math.NaN(), math.NaN()}
	}
	ratios := make([]float64, len(ours))
	for i := range ours {
		ratios[i] = advantage(ours[i], peer[i], b)
	}
	return spread{median: median(ratios), min: slices.Min(ratios), max: slices.Max(ratios)}
}
