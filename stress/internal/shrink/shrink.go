// Package shrink cuts a failing sequence of test steps down to a short one that still fails,
// for the differential suites' failure reports.
package shrink

import "slices"

// Remove returns a failing subsequence of steps, keeping their order; steps must fail. It
// drops chunks of halving size while the rest still fails, as delta debugging does, and ends
// with passes that drop one step at a time, so the result is 1-minimal: dropping any one of its
// steps makes it pass. fails may be called many times, each with a new slice.
func Remove[S any](steps []S, fails func([]S) bool) []S {
	for size := max(len(steps)/2, 1); ; {
		removed := false
		for i := 0; i < len(steps); {
			end := min(i+size, len(steps))
			candidate := slices.Concat(steps[:i], steps[end:])
			if fails(candidate) {
				steps, removed = candidate, true
				continue
			}
			i = end
		}
		switch {
		case size > 1:
			size /= 2
		case !removed:
			return steps
		}
	}
}
