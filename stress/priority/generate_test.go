package priority

import (
	"math/rand/v2"
	"time"
)

// maxSteps bounds the length of a generated sequence.
const maxSteps = 60

// keys are the items sequences use: few, so that they collide often.
var keys = []string{"a", "b", "c", "d", "e"}

// priorities are what AddWithOpts is given: none (zero), zero, and a few on either side.
var priorities = []*int{nil, ptr(0), ptr(-1), ptr(1), ptr(1), ptr(2), ptr(5)}

func ptr(n int) *int { return &n }

// delays are what AddWithOpts and AddAfter are given: zero and negative ones add at once, equal
// ones tie, and all are near the limiters' waits and the sleeps.
var delays = []time.Duration{-time.Millisecond, 0, 0, time.Millisecond, 2 * time.Millisecond,
	5 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond}

// sleepFor returns how long a sleep step lets pass: mostly a multiple of half a millisecond up
// to 12 ms, to fall between the delays and the limiters' waits, and sometimes a second, which
// passes them all.
func sleepFor(r *rand.Rand) time.Duration {
	if r.IntN(8) == 0 {
		return time.Second
	}
	return time.Duration(1+r.IntN(24)) * 500 * time.Microsecond
}

// weighted is a kind of step and how often the generator picks it.
type weighted struct {
	kind   kind
	weight int
}

// mix returns the steps and their weights for one sequence. Whether it shuts down, and whether it
// forgets, are drawn per sequence, so that some sequences never shut down and others do early,
// and some let failures pile up.
func mix(r *rand.Rand) []weighted {
	return []weighted{
		{addWithOpts, 18}, {add, 6}, {addAfter, 6}, {addRateLimited, 6}, {get, 16}, {done, 14},
		{length, 5}, {forget, []int{0, 3}[r.IntN(2)]}, {numRequeues, 4}, {shuttingDown, 1},
		{sleep, 10}, {shutDown, []int{0, 0, 1, 2}[r.IntN(4)]},
	}
}

// generate returns a random sequence determined by seed and stream (the variants draw from
// different streams). It has at most one shutDown step: controller-runtime's queue panics on a
// second ShutDown.
func generate(seed, stream uint64) []step {
	r := rand.New(rand.NewPCG(seed, stream))
	alphabet := keys[:1+r.IntN(1+r.IntN(len(keys)))] // one key as often as all five together
	m := mix(r)
	total := 0
	for _, w := range m {
		total += w.weight
	}
	steps := make([]step, 0, maxSteps)
	for range 1 + r.IntN(maxSteps) {
		var s step
		n := r.IntN(total)
		for _, w := range m {
			if n < w.weight {
				s.kind = w.kind
				break
			}
			n -= w.weight
		}
		s.keys = []string{alphabet[r.IntN(len(alphabet))]}
		switch s.kind {
		case addWithOpts:
			for range r.IntN(3) { // up to three items, which may repeat
				s.keys = append(s.keys, alphabet[r.IntN(len(alphabet))])
			}
			if r.IntN(2) == 0 {
				s.delay = delays[r.IntN(len(delays))]
			}
			s.rateLimited = r.IntN(3) == 0
			s.priority = priorities[r.IntN(len(priorities))]
		case addAfter:
			s.delay = delays[r.IntN(len(delays))]
		case sleep:
			s.delay = sleepFor(r)
		case done:
			s.pick = r.IntN(len(keys))
		case shutDown:
			s.drain = r.IntN(2) == 0
			for i := range m {
				if m[i].kind == shutDown {
					total -= m[i].weight
					m[i].weight = 0
				}
			}
		}
		steps = append(steps, s)
	}
	return steps
}
