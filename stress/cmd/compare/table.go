package main

import (
	"fmt"
	"math"
	"strings"
)

// tableLegend explains the table; it is printed above it.
const tableLegend = `Each figure is the median over rounds. Each of actorqueue's queues is compared with the queue it
replaces: its FIFO queue ("actorqueue") with client-go's, its priority queue ("actorqueue
priority", the controllerruntime module's) with controller-runtime's. A ratio is **how many times
better actorqueue is** than the peer: our figure ÷ the peer's where higher is better
(throughput), the peer's ÷ ours where lower is better (latency, CPU, bytes, goroutines,
wake-ups, allocations); above 1, actorqueue is ahead. It is the median of the ratios within each
round (the implementations run back to back, A B C D A B C D ...), with the lowest and highest
round in brackets. Targets are issue 5's: ✓ met, ✗ missed; a target without a peer holds for
both of actorqueue's queues.`

// comparison is a ratio column: how many times better ours is than peer, both implementation
// names.
type comparison struct{ ours, peer string }

// comparisons are the table's ratio columns: each of actorqueue's queues against the queue it
// replaces.
var comparisons = []comparison{{actorQueue, clientGo}, {actorQueuePriority, ctrlRT}}

// cell is a summary of one row: medians and ratios.
type cell struct {
	medians []float64 // by implementation, in the order of res.impls
	ratios  []spread  // by comparison, in the order of comparisons
}

// summarize computes the medians and ratios of a row. A comparison whose implementations did
// not run is n/a.
func (res results) summarize(r row) cell {
	figures := res.figures[r.id]
	c := cell{medians: make([]float64, len(figures)), ratios: make([]spread, len(comparisons))}
	for i, rounds := range figures {
		c.medians[i] = median(rounds)
	}
	for j, cmp := range comparisons {
		ours, peer := res.index(cmp.ours), res.index(cmp.peer)
		if ours < 0 || peer < 0 {
			c.ratios[j] = roundAdvantage(nil, nil, r.better)
			continue
		}
		c.ratios[j] = roundAdvantage(figures[ours], figures[peer], r.better)
	}
	return c
}

// index returns the position of the implementation named name in res.impls, or -1.
func (res results) index(name string) int {
	for i, n := range res.impls {
		if n == name {
			return i
		}
	}
	return -1
}

// met reports whether actorqueue meets t on row r with summary c: the comparison against t's
// peer, or, for a target without a peer, every one of actorqueue's queues that has a figure.
func (res results) met(t target, c cell) bool {
	if t.peer == "" {
		measured := false
		for _, cmp := range comparisons {
			if i := res.index(cmp.ours); i >= 0 && !math.IsNaN(c.medians[i]) {
				measured = true
				if c.medians[i] > t.atMost {
					return false
				}
			}
		}
		return measured
	}
	for j, cmp := range comparisons {
		if cmp.peer == t.peer {
			return c.ratios[j].median >= t.ratio
		}
	}
	return false
}

// markdown renders the table, one line per row.
func (res results) markdown() string {
	header := []string{"#", "row", "unit", "better"}
	header = append(header, res.impls...)
	for _, cmp := range comparisons {
		header = append(header, "× "+cmp.peer)
	}
	header = append(header, "targets")
	lines := [][]string{header}
	for _, r := range res.rows {
		c := res.summarize(r)
		line := []string{r.id, r.title, r.unit, direction(r.better)}
		for _, m := range c.medians {
			line = append(line, formatValue(m))
		}
		for _, s := range c.ratios {
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
