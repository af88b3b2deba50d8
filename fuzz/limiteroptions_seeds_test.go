package fuzz

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// trackerSeeds are hand-written inputs for FuzzLimiterOptions: each option at work, each
// constructor, and each way to be refused.
func trackerSeeds() []trackerSeed {
	const h = time.Hour
	quarters := []uint64{0, 2 << 50, 4 << 50, 6 << 50} // draws of 0, 1/4, 1/2, 3/4
	return []trackerSeed{
		// A window of a minute and a cap of two: c evicts a, the least recently failed; a minute
		// on, d evicts b, still in its window; another minute on, c has expired, d has not.
		trackerSeed{}.limiter(rootExponential, time.Second, 10*time.Second).
			options(2).forgetAfter(time.Minute).maxTracked(2).
			when(0).when(0).when(1).when(2).requeues(0).whenAfter(time.Minute, 3).requeues(1).
			whenAfter(time.Minute, 3).requeues(2),
		// The default window of a fast-slow limiter, the slow delay plus an hour: kept at its
		// end, forgotten 1ns past it; of items that failed at one instant, the cap evicts the
		// first to fail.
		trackerSeed{}.limiter(rootFastSlow, time.Second, time.Minute).count(1).
			options(1).maxTracked(3).
			when(0).when(1).when(0).whenAfter(time.Minute, 2).edge(3, 1, 0).requeues(1).requeues(0).
			edge(4, 0, 1).requeues(0).when(5).requeues(2).forget(5).when(1).requeues(1),
		// Deterministic jitter, halving at most: waits of 1s, 875ms, 750ms, 625ms, then 2s;
		// the jittered constructor's jitter gives way to a later JitterFactor.
		trackerSeed{}.limiter(rootJittered, time.Second, time.Minute).factor(0.5).
			options(1).source(quarters...).
			when(0).when(1).when(2).when(3).when(0).burst(0, 10),
		trackerSeed{}.limiter(rootJittered, time.Second, time.Minute).factor(0.5).
			options(2).jitterFactor(1).source(math.MaxUint64).burst(0, 64).forget(0).when(0),
		// The global source, full jitter, waits up to the maximum and past 2⁶³.
		trackerSeed{}.limiter(rootJittered, time.Millisecond, h).factor(1).
			options(0).burst(0, 64).burst(1, 10).whenAfter(h, 2),
		// limiter's own constructors; ForgetAfter(0) never forgets, time going back changes
		// nothing.
		trackerSeed{}.limiter(newExponential, 1, math.MaxInt64).
			options(2).forgetAfter(0).jitterFactor(0.25).burst(0, 64).whenAfter(h, 1).back(h, 2).requeues(0),
		trackerSeed{}.limiter(newFastSlow, time.Millisecond, time.Second).count(2).
			options(4).maxTracked(1).forgetAfter(time.Second).source(7<<50).jitterFactor(0.5).
			when(0).when(0).when(1).when(0).whenAfter(time.Second, 0).edge(0, 0, 1).requeues(0),
		// A cap of three: a refreshed item is not the least recent; Forget frees a place; after
		// time steps back, items fail at the limiter's time, in the order they were made.
		trackerSeed{}.limiter(newExponential, time.Second, time.Minute).
			options(1).maxTracked(3).
			when(0).when(1).when(2).when(0).when(3).requeues(1).requeues(0).forget(2).when(4).
			when(5).requeues(0).whenAfter(h, 3).back(h, 4).when(1).when(2).requeues(3).requeues(4),
		// Time that steps back leaves the limiter's time where it was: an item failing then is
		// stamped with the limiter's time, and kept to the end of a window counted from there.
		trackerSeed{}.limiter(rootExponential, time.Second, time.Hour).
			options(1).forgetAfter(time.Minute).
			whenAfter(time.Minute, 0).back(time.Second, 0).edge(1, 0, 0).requeues(0).edge(2, 0, 1).requeues(0),
		// A fast delay so long that the default window saturates at the largest Duration, and
		// no fast attempts: every wait slow, nothing forgotten after hours.
		trackerSeed{}.limiter(rootFastSlow, math.MaxInt64-h+1, time.Second).count(-1).
			options(0).when(0).when(0).wander(90*time.Minute, 1).requeues(0).burst(1, 10).requeues(1),
		// Every failure fast; the largest window and cap, a jitter of -0, which is accepted.
		trackerSeed{}.limiter(newFastSlow, time.Minute, time.Second).count(math.MaxInt).
			options(3).forgetAfter(math.MaxInt64).maxTracked(math.MaxInt).jitterFactor(math.Copysign(0, -1)).
			burst(0, 10).whenAfter(h, 1).back(time.Second, 0).requeues(0),
		// A base above the maximum: every wait is the maximum, cut by nearly all of it, then not.
		trackerSeed{}.limiter(rootExponential, h, time.Second).
			options(2).jitterFactor(1-0x1p-53).source(math.MaxUint64, 0).burst(0, 2).when(1).when(1),
		// A base of zero waits zero, whatever the jitter draws; the smallest factor cuts nothing.
		trackerSeed{}.limiter(rootJittered, 0, time.Second).factor(1).
			options(1).source(6 << 50).when(0).when(0).requeues(0),
		trackerSeed{}.limiter(newExponential, time.Second, time.Minute).
			options(2).jitterFactor(5e-324).source(math.MaxUint64).burst(0, 10),
		// Waits above 2⁵³ ns, which a float64 cannot hold, cut with a draw just below 1: by
		// 0.2·w, 16 ns too much when r·f·w is rounded as it was before 1cd219a; by a cut that
		// rounds up past f·w unless held below it; the largest waits, cut in full.
		trackerSeed{}.limiter(rootJittered, 6282595048769812054, 6282595048769812054).factor(0.2).
			options(1).source(math.MaxUint64).when(0),
		trackerSeed{}.limiter(rootJittered, 4625258596961706544, 4625258596961706544).factor(0.0015392817448290131).
			options(1).source(math.MaxUint64).when(0),
		trackerSeed{}.limiter(newFastSlow, math.MaxInt64, 1<<53+1).count(1).
			options(2).jitterFactor(1).source(math.MaxUint64, 4<<50).when(0).when(0).when(1),
		// Later options override earlier ones: no cap, no window, the second source's draws,
		// and no jitter after the constructor's.
		trackerSeed{}.limiter(rootJittered, 1, time.Second).factor(0.5).
			options(4).maxTracked(1).maxTracked(0).forgetAfter(time.Second).forgetAfter(0).
			burst(0, 10).when(1).when(2).whenAfter(h, 3).requeues(0),
		trackerSeed{}.limiter(rootJittered, time.Second, time.Minute).factor(1).
			options(2).source(7 << 50).source(2 << 50).when(0).when(0),
		trackerSeed{}.limiter(rootJittered, time.Second, time.Minute).factor(1).
			options(1).jitterFactor(0).burst(0, 10),
		// Refused: a negative delay, window, cap or jitter, an infinite or NaN jitter, nil
		// options; a valid option does not save an invalid one.
		trackerSeed{}.limiter(rootExponential, -1, time.Second).options(0),
		trackerSeed{}.limiter(newFastSlow, time.Second, math.MinInt64).count(0).options(0),
		trackerSeed{}.limiter(rootJittered, math.MinInt64, -1).factor(0.5).options(0),
		trackerSeed{}.limiter(rootFastSlow, 0, 0).count(0).options(1).forgetAfter(-1),
		trackerSeed{}.limiter(rootFastSlow, 0, 0).count(0).options(1).forgetAfter(math.MinInt64),
		trackerSeed{}.limiter(rootExponential, 0, 0).options(2).maxTracked(0).maxTracked(-1),
		trackerSeed{}.limiter(newExponential, 0, 0).options(1).maxTracked(math.MinInt),
		trackerSeed{}.limiter(rootJittered, 0, 0).factor(math.NaN()).options(0),
		trackerSeed{}.limiter(rootJittered, 0, 0).factor(math.Inf(-1)).options(0),
		trackerSeed{}.limiter(rootJittered, 0, 0).factor(0).options(1).jitterFactor(1 + 0x1p-52),
		trackerSeed{}.limiter(rootExponential, 0, 0).options(2).jitterFactor(-1).jitterFactor(0.5),
		trackerSeed{}.limiter(newFastSlow, 0, 0).count(0).options(1).jitterFactor(math.Inf(1)),
		trackerSeed{}.limiter(newExponential, 0, 0).options(1).nilOption(),
		trackerSeed{}.limiter(rootExponential, 0, 0).options(1).nilSource(),
	}
}

// TestTrackerSeedsDecode checks that each seed passes and decodes into the limiter and the
// calls it was written as, to its last byte, so that a change to decodeTracker or
// trackerRun.step cannot quietly turn the seeds into other inputs; and that the valid seeds
// build every constructor and every option, and the refused ones refuse every option that can
// be refused.
func TestTrackerSeedsDecode(t *testing.T) {
	sameCall := func(a, b trackerCall) bool { return a.method == b.method && a.item == b.item }
	built, refused := map[any]bool{}, map[any]bool{}
	for i, seed := range trackerSeeds() {
		spec, calls, unread := checkTracker(t, seed.data)
		if spec.String() != seed.spec.String() || !slices.EqualFunc(calls, seed.calls, sameCall) || unread > 0 {
			t.Errorf("seed %d decodes into %v, calls %v, %d bytes unread; want %v, calls %v",
				i, spec, calls, unread, seed.spec, seed.calls)
		}
		seen := built
		if !spec.valid() {
			seen = refused
		}
		seen[spec.ctor] = true
		for _, o := range spec.opts {
			seen[o.kind] = true
		}
	}
	for c := range trackerCtors {
		if !built[c] {
			t.Errorf("no seed builds constructor %d", c)
		}
	}
	for k := range optionKinds {
		if k < nilOption && !built[k] {
			t.Errorf("no valid seed has option kind %d", k)
		}
		if k != sourceOption && !refused[k] {
			t.Errorf("no refused seed has option kind %d", k)
		}
	}
}

// trackerSeed writes an input for FuzzLimiterOptions, value by value, in the order that
// decodeTracker and trackerRun.step read them: numbers raw, calls by their index. It notes
// the limiter and the calls the input stands for, for TestTrackerSeedsDecode.
type trackerSeed struct {
	data  []byte
	spec  trackerSpec
	calls []trackerCall // method and item only
}

func (s trackerSeed) pick(i int) trackerSeed {
	s.data = append(s.data, byte(i))
	return s
}

func (s trackerSeed) raw(v uint64) trackerSeed {
	s = s.pick(rawValue)
	s.data = binary.BigEndian.AppendUint64(s.data, v)
	return s
}

func (s trackerSeed) limiter(c trackerCtor, a, b time.Duration) trackerSeed {
	s.spec.ctor, s.spec.a, s.spec.b = c, a, b
	return s.pick(int(c)).raw(uint64(a)).raw(uint64(b))
}

// count is the fast-slow constructors' maxFastAttempts.
func (s trackerSeed) count(n int) trackerSeed {
	s.spec.fastTries = n
	return s.raw(uint64(n))
}

// factor is the jittered constructor's jitter.
func (s trackerSeed) factor(f float64) trackerSeed {
	s.spec.jitter = f
	return s.raw(math.Float64bits(f))
}

// options says how many options follow: at most four.
func (s trackerSeed) options(n int) trackerSeed { return s.pick(n) }

func (s trackerSeed) option(o trackerOption) trackerSeed {
	s.spec.opts = append(s.spec.opts, o)
	return s.pick(int(o.kind))
}

func (s trackerSeed) forgetAfter(d time.Duration) trackerSeed {
	return s.option(trackerOption{kind: forgetAfterOption, d: d}).raw(uint64(d))
}

func (s trackerSeed) maxTracked(n int) trackerSeed {
	return s.option(trackerOption{kind: maxTrackedOption, n: n}).raw(uint64(n))
}

func (s trackerSeed) jitterFactor(f float64) trackerSeed {
	return s.option(trackerOption{kind: jitterOption, factor: f}).raw(math.Float64bits(f))
}

func (s trackerSeed) source(draws ...uint64) trackerSeed {
	s = s.option(trackerOption{kind: sourceOption, draws: draws}).pick(len(draws) - 1)
	for _, d := range draws {
		s = s.raw(d)
	}
	return s
}

func (s trackerSeed) nilOption() trackerSeed { return s.option(trackerOption{kind: nilOption}) }
func (s trackerSeed) nilSource() trackerSeed { return s.option(trackerOption{kind: nilSourceOption}) }

// call starts the call to item that step decodes from its index, and notes that it makes
// method's call times.
func (s trackerSeed) call(item, step int, method string, times int) trackerSeed {
	for range times {
		s.calls = append(s.calls, trackerCall{method: method, item: item})
	}
	return s.pick(item).pick(step)
}

func (s trackerSeed) when(item int) trackerSeed { return s.call(item, 0, "WhenAt", 1) }

func (s trackerSeed) whenAfter(d time.Duration, item int) trackerSeed {
	return s.call(item, 1, "WhenAt", 1).pick(index(trackerSteps, d))
}

// edge fails item at the end of the window of other's last failure, moved by delta (-1, 0
// or 1 ns).
func (s trackerSeed) edge(item, other, delta int) trackerSeed {
	return s.call(item, 2, "WhenAt", 1).pick(other).pick(delta + 1)
}

func (s trackerSeed) burst(item, n int) trackerSeed {
	return s.call(item, 3, "WhenAt", n).pick(index(trackerBursts, n))
}

func (s trackerSeed) forget(item int) trackerSeed   { return s.call(item, 4, "Forget", 1) }
func (s trackerSeed) requeues(item int) trackerSeed { return s.call(item, 5, "NumRequeues", 1) }

func (s trackerSeed) back(d time.Duration, item int) trackerSeed {
	return s.call(item, 6, "WhenAt", 1).pick(index(trackerStepsBack, d))
}

// wander moves time forward by d, which must be less than two hours, and fails item.
func (s trackerSeed) wander(d time.Duration, item int) trackerSeed {
	s = s.call(item, 7, "WhenAt", 1)
	s.data = binary.BigEndian.AppendUint64(s.data, uint64(d))
	return s
}

// index returns the place of v in values, which must hold it.
func index[V comparable](values []V, v V) int {
	i := slices.Index(values, v)
	if i < 0 {
		panic(fmt.Sprintf("seed value %v is not among %v", v, values))
	}
	return i
}
