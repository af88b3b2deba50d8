package limiter

import (
	"math/rand/v2"
	"time"
)

// spread shortens waits by a random fraction of up to factor. Its zero value leaves them as
// they are.
type spread struct {
	factor float64
	random *rand.Rand // nil: math/rand/v2's global source
}

// apply returns w less a random fraction of w between zero and factor: a value in
// (w - factor·w, w], and so never negative when factor is at most 1.
func (s spread) apply(w time.Duration) time.Duration {
	if s.factor == 0 {
		return w
	}
	r := rand.Float64
	if s.random != nil {
		r = s.random.Float64
	}
	// r() < 1 and factor ≤ 1, so the cut, rounded as a float64, is at most w.
	return w - time.Duration(r()*s.factor*float64(w))
}

// own reports whether the spread draws from a source given by the caller.
func (s spread) own() bool { return s.random != nil }
