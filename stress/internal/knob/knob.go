// Package knob reads the environment variables that size the stress suites, so that a CI run
// stays short and a run on demand can go on for hours. Each reader fails the test at once on a
// value it cannot parse, rather than silently falling back to the default.
package knob

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// Int returns the value of the environment variable name as an int, or def when it is unset
// or empty. The value must be positive.
func Int(t testing.TB, name string, def int) int {
	t.Helper()
	return read(t, name, def, "a positive whole number", func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n > 0
	})
}

// Duration returns the value of the environment variable name as a time.Duration (in Go's
// syntax: "3s", "90m", "2h"), or def when it is unset or empty. The value must be positive.
func Duration(t testing.TB, name string, def time.Duration) time.Duration {
	t.Helper()
	return read(t, name, def, "a positive duration such as 30s or 2h", func(s string) (time.Duration, bool) {
		d, err := time.ParseDuration(s)
		return d, err == nil && d > 0
	})
}

// Seed returns the value of the environment variable name as a seed, or a random seed when it
// is unset or empty: every run explores new cases, and a failure names the seed that
// reproduces it.
func Seed(t testing.TB, name string) uint64 {
	t.Helper()
	return read(t, name, rand.Uint64(), "a seed, a whole number from 0 to 2^64-1", func(s string) (uint64, bool) {
		seed, err := strconv.ParseUint(s, 10, 64)
		return seed, err == nil
	})
}

// read returns def when the variable name is unset or empty, and otherwise its value as parse
// reads it; it fails the test, saying what it wants, when parse does not accept the value.
func read[T any](t testing.TB, name string, def T, want string, parse func(string) (T, bool)) T {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, ok := parse(s)
	if !ok {
		t.Fatalf("%s=%q: want %s", name, s, want)
	}
	return v
}
