package equivalence

import (
	"math/rand/v2"
	"time"
)

// maxSteps bounds the length of a generated sequence.
const maxSteps = 80

// keys are the items sequences use: few, so that they collide often. The runner's stray item
// (see runner_test.go) is not among them.
var keys = []string{"a", "b", "c", "d", "e", "f"}

// delays are what AddAfter is given: zero and negative ones add at once, equal ones tie in the
// delay heap, and all are near the limiters' delays and the sleeps.
var delays = []time.Duration{-time.Millisecond, 0, time.Millisecond, 2 * time.Millisecond,
	5 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond}

// sleepFor returns how long a sleep step lets pass: mostly a multiple of half a millisecond up
// to 12ms, to fall between the delays and the limiters' waits, and sometimes a second, which
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

// mix returns the steps a queue of level l can take and their weights. Three things are drawn
// per sequence: shutdowns, so that some sequences never shut down and others do early; Forget,
// so that some sequences let failures pile up; and, for rate-limiting queues, whether the
// sequence is shaped like a failing worker (mostly Get, AddRateLimited and Done, and time
// passing), which is what reaches the limiters' caps.
//
// The generator never makes a step whose outcome is a documented difference from client-go:
// Done is only called on an item a Get handed out and Done has not ended yet (or, when the test
// holds none, on an item no step adds).
func mix(r *rand.Rand, l level) []weighted {
	shutdowns := []int{0, 0, 1, 2}[r.IntN(4)]
	m := []weighted{
		{add, 20}, {get, 14}, {done, 14}, {length, 6}, {shuttingDown, 2}, {fill, 1}, {getRun, 1},
		{shutDown, shutdowns}, {shutDownWithDrain, shutdowns},
	}
	if l >= delaying {
		m = append(m, weighted{addAfter, 12}, weighted{sleep, 8})
	}
	if l >= rateLimiting {
		m = append(m, weighted{addRateLimited, 8}, weighted{retry, 12},
			weighted{forget, []int{0, 4}[r.IntN(2)]}, weighted{numRequeues, 5})
		if r.IntN(3) == 0 {
			m = []weighted{
				{get, 20}, {retry, 20}, {sleep, 20}, {done, 4}, {add, 3}, {addRateLimited, 3},
				{length, 3}, {numRequeues, 3}, {forget, r.IntN(2)}, {shutDown, 1}, {shutDownWithDrain, 1},
			}
		}
	}
	return m
}

// generate returns a random sequence for a queue of level l, determined by seed and stream (the
// variants draw from different streams, so that they do not all run the same sequences).
func generate(seed, stream uint64, l level) []step {
	r := rand.New(rand.NewPCG(seed, stream))
	alphabet := keys[:1+r.IntN(1+r.IntN(len(keys)))] // one key as often as all six together
	m := mix(r, l)
	total := 0
	for _, w := range m {
		total += w.weight
	}
	steps := make([]step, 1+r.IntN(maxSteps))
	for i := range steps {
		n := r.IntN(total)
		for _, w := range m {
			if n < w.weight {
				steps[i].kind = w.kind
				break
			}
			n -= w.weight
		}
		switch steps[i].kind {
		case add, addRateLimited, forget, numRequeues:
			steps[i].key = alphabet[r.IntN(len(alphabet))]
		case addAfter:
			steps[i].key = alphabet[r.IntN(len(alphabet))]
			steps[i].delay = delays[r.IntN(len(delays))]
		case sleep:
			steps[i].delay = sleepFor(r)
		case done, retry:
			steps[i].pick = r.IntN(len(keys) + len(fillers)) // any item a correct queue may have handed out
		}
	}
	return steps
}
