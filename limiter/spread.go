package limiter

import (
	"math/big"
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
// (w - factor·w, w], so positive for a positive w, factor being at most 1.
func (s spread) apply(w time.Duration) time.Duration {
	if s.factor == 0 {
		return w
	}
	r := rand.Float64
	if s.random != nil {
		r = s.random.Float64
	}
	bound := s.factor * float64(w)
	cut := time.Duration(r() * bound)
	if float64(cut) >= bound*nearlyOne {
		// A draw just below 1 can round up to the bound itself, or past it when w has more
		// digits than a float64 holds: only there is the exact bound worth computing.
		cut = min(cut, below(s.factor, w))
	}
	return w - cut
}

// nearlyOne is far enough below 1 that a cut rounded to within a few units in the last place
// of the bound is checked, and close enough that almost no draw is.
const nearlyOne = 1 - 1.0/(1<<40)

// below returns the largest number of nanoseconds less than factor·w, computed exactly, for
// factor in (0, 1] and w > 0; zero when factor·w is at most 1 ns.
func below(factor float64, w time.Duration) time.Duration {
	// 53 bits of factor times 63 of w fit in 128 bits: the product is exact.
	product := new(big.Float).SetPrec(128).SetFloat64(factor)
	product.Mul(product, new(big.Float).SetInt64(int64(w)))
	n, accuracy := product.Int64() // factor·w rounded toward zero
	if accuracy == big.Exact {
		n-- // factor·w is a whole number of nanoseconds: the bound itself is not allowed
	}
	return time.Duration(max(n, 0))
}

// own reports whether the spread draws from a source given by the caller.
func (s spread) own() bool { return s.random != nil }
