package main

import (
	"fmt"
	"math"
	"strings"
)

// tableLegend explains the table; it is printed above it.
const tableLegend = `Each figure is the median over rounds. A ratio is **how many times better actorqueue is** than
the peer: actorqueue's figure ÷ the peer's where higher is better (throughput), the peer's ÷
actorqueue's where lower is better (latency, bytes, goroutines, wake-ups, allocations); above 1,
actorqueue is ahead. It is the median of the ratios within each round (the implementations run
back to back, A B C A B C ...), with the lowest and highest round in brackets. Targets are issue
5's, for actorqueue: ✓ met, ✗ missed.`

// cell is a summary of one row: medians and ratios.
type cell struct {
	medians []float64 // by implementation
	ratios  []spread  // by implementation; ratios[0], actorqueue against itself, is unused
}

// summarize computes the medians and ratios of a row.
func (res results) summarize(r row) cell {
	figures := res.figures[r.id]
	c := cell{medians: make([]float64, len(figures)), ratios: make([]spread, len(figures))}
	for i, rounds := range figures {
		c.medians[i] = median(rounds)
		c.ratios[i] = roundAdvantage(figures[0], rounds, r.better)
	}
	return c
}

// met reports whether actorqueue meets t on row r with summary c.
func (res results) met(t target, c cell) bool {
	if t.peer == "" {
		return c.medians[0] <= t.atMost
	}
	for i, name := range res.impls {
		if name == t.peer {
			return c.ratios[i].median >= t.ratio
		}
	}
	return false
}

// markdown renders the table, one line per row.
func (res results) markdown() string {
	header := []string{"#", "row", "unit", "better"}
	header = append(header, res.impls...)
	for _, peer := range res.impls[1:] {
		header = append(header, "× "+peer)
	}
	header = append(header, "targets")
	lines := [][]string{header}
	for _, r := range res.rows {
		c := res.summarize(r)
		line := []string{r.id, r.title, r.unit, direction(r.better)}
		for _, m := range c.medians {
			line = append(line, formatValue(m))
		}
		for _, s := range c.ratios[1:] {
			line = append(line, formatSpread(s))
		}
		line = append(line, res.targetMarks(r, c))
		lines = append(lines, line)
	}
	return renderMarkdown(lines)
}

func direction(b better) string {
	if b == higherIsBetter {
		return "higher"
	}
	return "lower"
}

// formatSpread writes a ratio with its extremes: 1.52× [1.31–1.70].
func formatSpread(s spread) string {
	if math.IsNaN(s.median) {
		return "n/a"
	}
	if s.min == s.max {
		return formatRatio(s.median)
	}
	return fmt.Sprintf("%s [%s–%s]", formatRatio(s.median), strings.TrimSuffix(formatRatio(s.min), "×"), formatRatio(s.max))
}

// targetMarks writes each target of r with ✓ or ✗; a missed absolute target also shows the
// figure.
func (res results) targetMarks(r row, c cell) string {
	var marks []string
	for _, t := range r.targets {
		if res.met(t, c) {
			marks = append(marks, "✓ "+t.String())
		} else {
			marks = append(marks, "✗ "+t.String())
		}
	}
	return strings.Join(marks, "; ")
}

// renderMarkdown lays out lines as a Markdown table whose first line is the header, padding
// the cells so that the columns line up in a terminal as well.
func renderMarkdown(lines [][]string) string {
	widths := make([]int, len(lines[0]))
	for _, line := range lines {
		for i, cell := range line {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	var b strings.Builder
	write := func(line []string) {
		b.WriteString("|")
		for i, cell := range line {
			b.WriteString(" " + cell + strings.Repeat(" ", widths[i]-len([]rune(cell))) + " |")
		}
		b.WriteString("\n")
	}
	write(lines[0])
	rule := make([]string, len(widths))
	for i, w := range widths {
		rule[i] = strings.Repeat("-", w)
	}
	write(rule)
	for _, line := range lines[1:] {
		write(line)
	}
	return b.String()
}
