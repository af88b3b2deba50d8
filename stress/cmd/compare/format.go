package main

import (
	"fmt"
	"math"
	"strconv"
)

// formatValue writes a figure with three significant digits and an SI prefix from k upwards:
// 1.23 M, 456 k, 12.3, 0.25, 0. NaN is n/a; +Inf is ∞.
func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 1):
		return "∞"
	}
	for _, p := range []struct {
		scale  float64
		prefix string
	}{{1e9, " G"}, {1e6, " M"}, {1e3, " k"}} {
		if math.Abs(v) >= p.scale {
			return significant(v/p.scale) + p.prefix
		}
	}
	return significant(v)
}

// significant writes v with three significant digits, without trailing zeros.
func significant(v float64) string {
	if v == 0 {
		return "0"
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v)))) - 1
	s := strconv.FormatFloat(v, 'f', max(digits, 0), 64)
	for digits > 0 && (s[len(s)-1] == '0' || s[len(s)-1] == '.') {
		last := s[len(s)-1]
		s = s[:len(s)-1]
		if last == '.' {
			break
		}
	}
	return s
}

// formatRatio writes an advantage with two decimals below 10, one below 100, none above:
// 1.52×, 12.5×, 7143×, ∞ or n/a.
func formatRatio(r float64) string {
	switch {
	case math.IsNaN(r):
		return "n/a"
	case math.IsInf(r, 1):
		return "∞"
	case r >= 100:
		return fmt.Sprintf("%.0f×", r)
	case r >= 10:
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// thousands writes n with a comma between groups of three digits: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
