package limiter

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// step is one call on a limiter: "when a" (at t0 plus at, for timed limiters), "forget a",
// "requeues a" or "tracked" (how many items it remembers), and its expected answer (a
// duration or a count; "" for forget).
type step struct {
	call string
	at   time.Duration
	want string
}

func run(t *testing.T, l RateLimiter[string], steps []step) {
	t.Helper()
	for i, s := range steps {
		var verb, item, got string
		fmt.Sscan(s.call, &verb, &item)
		switch verb {
		case "when":
			got = WhenAt(l, item, t0.Add(s.at)).String()
		case "forget":
			l.Forget(item)
		case "requeues":
			got = fmt.Sprint(l.NumRequeues(item))
		case "tracked":
			got = fmt.Sprint(l.(interface{ Tracked() int }).Tracked())
		default:
			t.Fatalf("unknown call %q", s.call)
		}
		if got != s.want {
			t.Errorf("step %d (%s): got %s, want %s", i, s.call, got, s.want)
		}
	}
}

func TestExponential(t *testing.T) {
	run(t, NewExponential[string](time.Millisecond, time.Second), []step{
		{call: "when one", want: "1ms"},
		{call: "when one", want: "2ms"},
		{call: "when one", want: "4ms"},
		{call: "when one", want: "8ms"},
		{call: "when one", want: "16ms"},
		{call: "requeues one", want: "5"},
		{call: "when two", want: "1ms"},
		{call: "when two", want: "2ms"},
		{call: "requeues two", want: "2"},
		{call: "forget one", want: ""},
		{call: "requeues one", want: "0"},
		{call: "when one", want: "1ms"},
	})
}

func TestExponentialCapsAndNeverOverflows(t *testing.T) {
	// The cap is reached, then 2ⁿ overflows float64 and then int64 nanoseconds: the answer stays
	// at the cap throughout.
	steps := []step{{call: "when a", want: "1ms"}}
	for n := 1; n < 1100; n++ {
		want := 1000 * time.Second
		if n < 20 { // 2²⁰ms is the first power of two past 1000s
			want = time.Duration(1<<n) * time.Millisecond
		}
		steps = append(steps, step{call: "when a", want: want.String()})
	}
	run(t, NewExponential[string](time.Millisecond, 1000*time.Second), steps)

	// 1ns·2⁶³ is exactly one past the largest Duration; client-go converts it into a negative
	// delay. Here it is the cap.
	huge := time.Duration(math.MaxInt64)
	l := NewExponential[string](1, huge)
	for range 63 {
		l.When("a")
	}
	if got := l.When("a"); got != huge {
		t.Errorf("1ns after 63 failures: got %v, want %v", got, huge)
	}

	// A zero base waits zero forever, even once 2ⁿ is infinite.
	zero := NewExponential[string](0, time.Hour)
	for n := range 1100 {
		if got := zero.When("a"); got != 0 {
			t.Fatalf("zero base after %d failures: got %v", n, got)
		}
	}
}

func TestFastSlow(t *testing.T) {
	run(t, NewFastSlow[string](5*time.Millisecond, 10*time.Second, 3), []step{
		{call: "when one", want: "5ms"},
		{call: "when one", want: "5ms"},
		{call: "when one", want: "5ms"},
		{call: "when one", want: "10s"},
		{call: "when one", want: "10s"},
		{call: "requeues one", want: "5"},
		{call: "when two", want: "5ms"},
		{call: "requeues two", want: "1"},
		{call: "forget one", want: ""},
		{call: "requeues one", want: "0"},
		{call: "when one", want: "5ms"},
	})
	run(t, NewFastSlow[string](time.Millisecond, time.Second, 0), []step{
		{call: "when a", want: "1s"},
	})
}

func TestMaxOf(t *testing.T) {
	run(t, NewMaxOf(
		RateLimiter[string](NewFastSlow[string](5*time.Millisecond, 3*time.Second, 3)),
		NewExponential[string](time.Millisecond, time.Second),
	), []step{
		{call: "when one", want: "5ms"},
		{call: "when one", want: "5ms"},
		{call: "when one", want: "5ms"},
		{call: "when one", want: "3s"},
		{call: "when one", want: "3s"},
		{call: "requeues one", want: "5"},
		{call: "when two", want: "5ms"},
		{call: "forget one", want: ""},
		{call: "requeues one", want: "0"},
		{call: "when one", want: "5ms"},
	})
	run(t, NewMaxOf[string](), []step{{call: "when a", want: "0s"}, {call: "requeues a", want: "0"}})
}

func TestMaxWait(t *testing.T) {
	run(t, NewMaxWait(RateLimiter[string](NewExponential[string](time.Minute, time.Hour)), 3*time.Minute), []step{
		{call: "when one", want: "1m0s"},
		{call: "when one", want: "2m0s"},
		{call: "when one", want: "3m0s"},
		{call: "when one", want: "3m0s"},
		{call: "requeues one", want: "4"},
		{call: "forget one", want: ""},
		{call: "requeues one", want: "0"},
		{call: "when one", want: "1m0s"},
	})
}

func TestBucketTakesTimeAsArgument(t *testing.T) {
	// Two tokens per second, bursts of two: the third retry at t0 waits half a second, a retry
	// a second later finds a token again.
	l := &Bucket[string]{Limiter: rate.NewLimiter(2, 2)}
	l.Limiter.SetLimitAt(t0, 2) // start the bucket's clock at t0
	run(t, l, []step{
		{call: "when a", want: "0s"},
		{call: "when b", want: "0s"},
		{call: "when c", want: "500ms"},
		{call: "when d", want: "1s"},
		{call: "when a", at: 3 * time.Second, want: "0s"},
		{call: "requeues a", want: "0"},
		{call: "forget a", want: ""},
	})
}

func TestItemBucket(t *testing.T) {
	// One token per second per item, no burst beyond one.
	run(t, NewItemBucket[string](1, 1), []step{
		{call: "when a", want: "0s"},
		{call: "when a", want: "1s"},
		{call: "when a", want: "2s"},
		{call: "when b", want: "0s"}, // b has a bucket of its own
		{call: "when a", at: 3 * time.Second, want: "0s"},
		{call: "requeues a", want: "0"},
		{call: "forget a", want: ""},
		{call: "when a", at: 3 * time.Second, want: "0s"}, // a fresh bucket
	})
}

func TestMaxOfPassesTheTimeToItsLimiters(t *testing.T) {
	b := &Bucket[string]{Limiter: rate.NewLimiter(1, 1)}
	b.Limiter.SetLimitAt(t0, 1)
	l := NewMaxWait(RateLimiter[string](NewMaxOf(RateLimiter[string](b), NewExponential[string](0, 0))), time.Hour)
	run(t, l, []step{
		{call: "when a", want: "0s"},
		{call: "when a", want: "1s"},
		{call: "when a", at: 10 * time.Second, want: "0s"},
	})
}

func TestConstructorsRejectBadArguments(t *testing.T) {
	var nilExp *Exponential[string]
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"negative base", func() { NewExponential[string](-1, 0) }, "workqueue: exponential rate limiter: negative delay (base -1ns, max 0s)"},
		{"negative max", func() { NewExponential[string](0, -1) }, "workqueue: exponential rate limiter: negative delay (base 0s, max -1ns)"},
		{"negative fast", func() { NewFastSlow[string](-1, 0, 1) }, "workqueue: fast-slow rate limiter: negative delay (fast -1ns, slow 0s)"},
		{"nil in max-of", func() { NewMaxOf[string](NewExponential[string](0, 0), nil) }, "workqueue: max-of rate limiter: limiter 1 is nil"},
		{"typed nil in max-of", func() { NewMaxOf[string](nilExp) }, "workqueue: max-of rate limiter: limiter 0 is nil"},
		{"nil in max-wait", func() { NewMaxWait[string](nil, time.Second) }, "workqueue: max-wait rate limiter: nil limiter"},
		{"negative max wait", func() { NewMaxWait[string](NewExponential[string](0, 0), -1) }, "workqueue: max-wait rate limiter: negative maximum delay -1ns"},
		{"negative burst", func() { NewItemBucket[string](1, -1) }, "workqueue: item bucket rate limiter: negative rate 1 or burst -1"},
		{"negative forget after", func() { ForgetAfter(-1) }, "workqueue: ForgetAfter: negative duration -1ns"},
		{"negative max tracked", func() { MaxTracked(-1) }, "workqueue: MaxTracked: negative count -1"},
		{"negative jitter", func() { JitterFactor(-0.5) }, "workqueue: JitterFactor: factor -0.5 is not between 0 and 1"},
		{"jitter above 1", func() { JitterFactor(1.5) }, "workqueue: JitterFactor: factor 1.5 is not between 0 and 1"},
		{"NaN jitter", func() { JitterFactor(math.NaN()) }, "workqueue: JitterFactor: factor NaN is not between 0 and 1"},
		{"nil random source", func() { RandomSource(nil) }, "workqueue: RandomSource: nil source"},
		{"nil option", func() { NewExponential[string](0, 0, MaxTracked(1), nil) }, "workqueue: exponential rate limiter: option 1 is nil"},
		{"typed nil option", func() { NewFastSlow[string](0, 0, 0, optionFunc(nil)) }, "workqueue: fast-slow rate limiter: option 0 is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if got := recover(); got != tt.want {
					t.Errorf("panic %q, want %q", got, tt.want)
				}
			}()
			tt.f()
		})
	}
}

// custom is a limiter from outside this package.
type custom struct{ RateLimiter[string] }

func TestSafe(t *testing.T) {
	exp := NewExponential[string](0, 0)
	tests := []struct {
		l    RateLimiter[string]
		want bool
	}{
		{exp, true},
		{NewFastSlow[string](0, 0, 0), true},
		{NewExponential[string](0, 0, ForgetAfter(time.Second), MaxTracked(2), JitterFactor(1)), true},
		{NewFastSlow[string](0, 0, 0, MaxTracked(2), JitterFactor(0.5)), true},
		{NewMaxOf[string](NewExponential[string](0, 0, JitterFactor(1))), true},
		{NewExponential[string](0, 0, RandomSource(fixed(0))), false}, // the source is outside code
		{NewFastSlow[string](0, 0, 0, JitterFactor(1), RandomSource(fixed(0))), false},
		{NewMaxOf[string](exp, NewExponential[string](0, 0, RandomSource(fixed(0)))), false},
		{NewItemBucket[string](1, 1), true},
		{&Bucket[string]{Limiter: rate.NewLimiter(1, 1)}, true},
		{&Bucket[string]{}, false},
		{&Exponential[string]{}, false}, // a zero value panics when asked to wait
		{&FastSlow[string]{}, false},
		{NewMaxOf[string](exp, NewMaxWait[string](exp, 0)), true},
		{NewMaxOf[string](exp, custom{exp}), false},
		{NewMaxWait[string](custom{exp}, 0), false},
		{custom{exp}, false},
	}
	for i, tt := range tests {
		if got := Safe(tt.l); got != tt.want {
			t.Errorf("%d: Safe(%T) = %v, want %v", i, tt.l, got, tt.want)
		}
	}
}

// TestZeroValueCountsNothing: an exponential or fast-slow limiter made without its constructor
// counts no failures and forgets without complaint, as client-go's, and panics with a message
// that says why when asked to wait.
func TestZeroValueCountsNothing(t *testing.T) {
	for _, l := range []RateLimiter[string]{&Exponential[string]{}, &FastSlow[string]{}} {
		if n := l.NumRequeues("a"); n != 0 {
			t.Errorf("%T: NumRequeues = %d, want 0", l, n)
		}
		l.Forget("a")
		func() {
			defer func() {
				if p := fmt.Sprint(recover()); !strings.Contains(p, "the zero value cannot count failures") {
					t.Errorf("%T: When panicked with %q", l, p)
				}
			}()
			l.When("a")
		}()
	}
}
