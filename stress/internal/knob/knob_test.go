package knob

import (
	"testing"
	"time"
)

// TestDefaultsAndValues: an unset variable gives the default, a set one its value.
func TestDefaultsAndValues(t *testing.T) {
	t.Setenv("KNOB_TEST", "")
	if got := Int(t, "KNOB_TEST", 7); got != 7 {
		t.Errorf("Int of an empty variable = %d, want the default 7", got)
	}
	t.Setenv("KNOB_TEST", "12")
	if got := Int(t, "KNOB_TEST", 7); got != 12 {
		t.Errorf("Int of 12 = %d", got)
	}
	if got := Seed(t, "KNOB_TEST"); got != 12 {
		t.Errorf("Seed of 12 = %d", got)
	}
	t.Setenv("KNOB_TEST", "90m")
	if got := Duration(t, "KNOB_TEST", time.Second); got != 90*time.Minute {
		t.Errorf("Duration of 90m = %v", got)
	}
}

// TestBadValuesFail: a value the reader cannot take fails the test instead of being ignored.
func TestBadValuesFail(t *testing.T) {
	for _, c := range []struct {
		value string
		read  func(testing.TB)
	}{
		{"-3", func(tb testing.TB) { Int(tb, "KNOB_TEST", 1) }},
		{"many", func(tb testing.TB) { Int(tb, "KNOB_TEST", 1) }},
		{"0s", func(tb testing.TB) { Duration(tb, "KNOB_TEST", time.Second) }},
		{"soon", func(tb testing.TB) { Duration(tb, "KNOB_TEST", time.Second) }},
		{"-1", func(tb testing.TB) { Seed(tb, "KNOB_TEST") }},
	} {
		t.Setenv("KNOB_TEST", c.value)
		r := &recorder{TB: t}
		func() {
			defer func() { recover() }() // Fatalf's stand-in panics to stop the reader
			c.read(r)
		}()
		if !r.failed {
			t.Errorf("%q was accepted", c.value)
		}
	}
}

// recorder is a testing.TB whose Fatalf records the failure and stops the caller.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	panic(r)
}
