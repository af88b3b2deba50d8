package fuzz

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/limiter"
)

// FuzzLimiterOptions builds an exponential or fast-slow limiter through each constructor that
// takes options, with ForgetAfter, MaxTracked, JitterFactor and RandomSource options decoded
// from the input, invalid ones included, and compares every answer of WhenAt, NumRequeues,
// Forget and Tracked, at instants that move forward, stand still and now and then step back,
// with refTracker, written from the documentation: which items the idle window forgets and
// which one a full cap evicts, how counts and waits go on after that, and the jitter: always
// within (w - f·w, w], and w - ⌊r·f·w⌋ when the draw r is known. Every wait must also be
// between zero and the longest delay, and Tracked at most MaxTracked. Constructors must panic
// with a workqueue: message exactly when the documentation says so.
func FuzzLimiterOptions(f *testing.F) {
	for _, seed := range trackerSeeds() {
		f.Add(seed.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkTracker(t, data) })
}

// A run makes at most trackerMaxSteps calls or bursts of failures, and stops once it has
// made trackerMaxCalls calls, each failure of a burst counted: enough to fill caps and
// saturate 2ⁿ several times, few enough that the fuzzer, which reruns an input thousands of
// times to minimize it, does not stall on long ones.
const (
	trackerMaxSteps = 100
	trackerMaxCalls = 1000
)

// checkTracker decodes a limiter from data and checks that it is built or refused as it
// should be; if built, it makes the calls that the rest of data decodes into, within the
// limits above, and checks every answer. It returns the limiter decoded, the calls made, and
// how many bytes of data it left unread.
func checkTracker(t *testing.T, data []byte) (spec trackerSpec, calls []trackerCall, unread int) {
	in := &input{data: data}
	spec = decodeTracker(in)
	real, problem := spec.buildChecked()
	if problem != "" {
		t.Fatal(problem)
	}
	if real == nil {
		return spec, nil, len(in.data) // invalid arguments, refused as they should be
	}
	if got, want := limiter.Safe[int](real), !spec.ownSource(); got != want {
		t.Fatalf("%v: Safe = %v, want %v", spec, got, want)
	}
	run := &trackerRun{t: t, spec: spec, real: real, ref: newRefTracker(spec)}
	for steps := 0; steps < trackerMaxSteps && len(run.calls) < trackerMaxCalls && !in.done(); steps++ {
		run.step(in)
	}
	return spec, run.calls, len(in.data)
}

// trackerItems is how many items a run fails: few, so that caps fill and items come back.
const trackerItems = 6

// trackerSteps are the steps time moves forward by; zero stands still.
var trackerSteps = []time.Duration{0, 1, time.Millisecond, time.Second, time.Minute, time.Hour}

// trackerStepsBack are the steps time moves back by.
var trackerStepsBack = []time.Duration{1, time.Second, time.Hour}

// trackerBursts are the numbers of failures in a row, the last enough to saturate 2ⁿ.
var trackerBursts = []int{2, 10, 64}

// trackerOrigin is the instant that the run's durations count from.
var trackerOrigin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// trackerRun drives the library's limiter and the reference through the same calls.
type trackerRun struct {
	t     *testing.T
	spec  trackerSpec
	real  tracker
	ref   *refTracker
	now   time.Duration // since trackerOrigin, never negative
	calls []trackerCall
}

// trackerCall is one call made, for the report of a failure.
type trackerCall struct {
	at     time.Duration
	method string
	item   int
	result any // what the call returned; nil for none
}

// step decodes one call from in, or a few failures in a row, makes it, and checks it.
func (r *trackerRun) step(in *input) {
	item := in.pick(trackerItems)
	switch in.pick(8) {
	case 0:
		r.when(item)
	case 1:
		r.later(choose(in, trackerSteps...))
		r.when(item)
	case 2: // to the end of the window of another item's last failure, or 1ns either side
		other, edge := in.pick(trackerItems), choose(in, -1, 0, 1)
		if last, ok := r.ref.lastFailure(other); ok && r.ref.window > 0 && r.ref.window < math.MaxInt64-last {
			r.now = last + r.ref.window + time.Duration(edge)
		}
		r.when(item)
	case 3:
		for range choose(in, trackerBursts...) {
			r.when(item)
		}
	case 4:
		r.real.Forget(item)
		r.ref.forget(item)
		r.record("Forget", item, nil)
	case 5:
		got, want := r.real.NumRequeues(item), r.ref.requeues(item)
		r.record("NumRequeues", item, got)
		if got != want {
			r.fatalf("NumRequeues(%d) = %d, want %d", item, got, want)
		}
	case 6: // time steps back: the limiter's own time stays where it is
		r.now = max(0, r.now-choose(in, trackerStepsBack...))
		r.when(item)
	case 7:
		r.later(time.Duration(in.uint64() % uint64(2*time.Hour)))
		r.when(item)
	}
	got := r.real.Tracked()
	if r.ref.cap > 0 && got > r.ref.cap {
		r.fatalf("Tracked() = %d, above MaxTracked(%d)", got, r.ref.cap)
	}
	if want := r.ref.tracked(); got != want {
		r.fatalf("Tracked() = %d, want %d", got, want)
	}
}

// later moves time forward by d, unless that would take it past the largest Duration.
func (r *trackerRun) later(d time.Duration) {
	if r.now <= math.MaxInt64-d {
		r.now += d
	}
}

// when records a failure of item now in both limiters and checks the library's wait.
func (r *trackerRun) when(item int) {
	got := r.real.WhenAt(item, trackerOrigin.Add(r.now))
	w, draw := r.ref.fail(item, r.now)
	r.record("WhenAt", item, got)
	if got < 0 || got > r.ref.longest {
		r.fatalf("WhenAt(%d) = %v, outside [0, %v]", item, got, r.ref.longest)
	}
	if problem := jitterProblem(got, w, draw); problem != "" {
		r.fatalf("WhenAt(%d) after %d failures = %v, want %v with %v: %s", item, r.ref.requeues(item)-1, got, w, draw, problem)
	}
}

// String writes c as the call it made, without its result.
func (c trackerCall) String() string { return fmt.Sprintf("%s(%d)", c.method, c.item) }

// record notes a call made now and its result, for fatalf.
func (r *trackerRun) record(method string, item int, result any) {
	r.calls = append(r.calls, trackerCall{at: r.now, method: method, item: item, result: result})
}

// fatalf reports a failure with the limiter and the calls that led to it.
func (r *trackerRun) fatalf(format string, args ...any) {
	r.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%v\n", r.spec)
	for _, c := range r.calls {
		fmt.Fprintf(&b, "\tat +%v: %v", c.at, c)
		if c.result != nil {
			fmt.Fprintf(&b, " = %v", c.result)
		}
		b.WriteByte('\n')
	}
	r.t.Fatalf("%s"+format, append([]any{b.String()}, args...)...)
}
