package bench

import "math/rand/v2"

// InformerEvents returns the keys an informer hands a controller, as indexes into objects
// 0..objects-1: first the initial list, every object once in order, then watch events, until
// events in all (at least objects). The watch events come in bursts of burst: each burst's
// keys are drawn at random from a window of 4·burst consecutive objects at a random place, so
// that some keys repeat within a burst (about one in eight) and windows that overlap repeat
// keys across bursts. The seed is fixed: every implementation gets the same events.
func InformerEvents(objects, events, burst int) []int {
	return InformerStream(objects, events, burst, 4*burst, 0)
}

// InformerStream is InformerEvents with the window of each burst given, and one of many
// streams: stream s draws from a seed of its own, so that several producers that each add a
// stream (informers whose events map to the same keys) add different bursts. A window smaller
// than burst makes the bursts duplicate-heavy: each key of a burst is drawn about
// burst/window times. Stream 0 with a window of 4·burst is InformerEvents.
func InformerStream(objects, events, burst, window int, stream uint64) []int {
	out := make([]int, 0, max(objects, events))
	for k := range objects {
		out = append(out, k)
	}
	rng := rand.New(rand.NewPCG(26, 26+stream))
	window = max(1, min(window, objects))
	for len(out) < events {
		from := rng.IntN(objects - window + 1)
		for range min(burst, events-len(out)) {
			out = append(out, from+rng.IntN(window))
		}
	}
	return out
}

// mix returns a well-mixed hash of a and b (splitmix64's finalizer), for choices that must
// look random yet be the same in every run.
func mix(a, b uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 + b + 0x632be59bd9b4e5f5
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
