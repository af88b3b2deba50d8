package main

import (
	"math"
	"strings"
	"testing"
)

// fixture is a run with fixed figures: three rounds of a throughput row, one round of a
// goroutine count, a row where controller-runtime cannot take part, and a row where only the
// priority queues can.
func fixture() results {
	return results{
		impls: []string{actorQueue, clientGo, actorQueuePriority, ctrlRT},
		rows: []row{
			{id: "1", title: "cycle", unit: "items/s", better: higherIsBetter, targets: ahead(1), throughput: true},
			{id: "G", title: "goroutines", unit: "goroutines", better: lowerIsBetter, targets: []target{{atMost: 1}}},
			{id: "W", title: "wake-ups", unit: "wake-ups/min", better: lowerIsBetter, targets: []target{{atMost: 0}, {peer: clientGo, ratio: 1}}},
			{id: "P", title: "priorities", unit: "µs", better: lowerIsBetter},
		},
		figures: map[string][][]float64{
			// ratios of actorqueue to client-go: 2, 3, 1.5; of actorqueue priority to
			// controller-runtime: 0.5, 0.6, 0.4 (the FIFO queue's figures do not enter it)
			"1": {{200, 300, 150}, {100, 100, 100}, {200, 300, 150}, {400, 500, 375}},
			// the priority queue's 2 goroutines miss the target that the FIFO queue meets
			"G": {{1}, {0}, {2}, {4}},
			"W": {{6}, {6}, {0}, {math.NaN()}},
			"P": {{math.NaN()}, {math.NaN()}, {10}, {30}},
		},
	}
}

// tableCells returns the cells of the line of row id in a rendered table.
func tableCells(t *testing.T, table, id string) []string {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) > 1 && cells[0] == id {
			return cells
		}
	}
	t.Fatalf("no line for row %q in\n%s", id, table)
	return nil
}

func TestMarkdownShowsMediansRatiosAndTargets(t *testing.T) {
	table := fixture().markdown()
	cases := []struct {
		id   string
		want []string // #, row, unit, better, 4 medians, 2 ratios, targets
	}{
		{"1", []string{"1", "cycle", "items/s", "higher", "200", "100", "200", "400",
			"2.00× [1.50–3.00×]", "0.50× [0.40–0.60×]", "✓ ≥ 1× client-go; ✗ ≥ 1× controller-runtime"}},
		{"G", []string{"G", "goroutines", "goroutines", "lower", "1", "0", "2", "4",
			"0.00×", "2.00×", "✗ ≤ 1"}},
		{"W", []string{"W", "wake-ups", "wake-ups/min", "lower", "6", "6", "0", "n/a",
			"1.00×", "n/a", "✗ = 0; ✓ ≥ 1× client-go"}},
		{"P", []string{"P", "priorities", "µs", "lower", "n/a", "n/a", "10", "30",
			"n/a", "3.00×", ""}},
	}
	for _, c := range cases {
		got := tableCells(t, table, c.id)
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("row %s:\n got %q\nwant %q", c.id, got, c.want)
		}
	}
	header := tableCells(t, table, "#")
	if got := strings.Join(header, ","); got != "#,row,unit,better,actorqueue,client-go,actorqueue priority,controller-runtime,× client-go,× controller-runtime,targets" {
		t.Errorf("header = %s", got)
	}
}

func TestRenderMarkdownAlignsColumns(t *testing.T) {
	table := renderMarkdown([][]string{{"a", "bb"}, {"ééé", "c"}, {"d", "eeee"}})
	want := "| a   | bb   |\n| --- | ---- |\n| ééé | c    |\n| d   | eeee |\n"
	if table != want {
		t.Errorf("renderMarkdown =\n%s\nwant\n%s", table, want)
	}
}

func TestFormatValue(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.25, "0.25"}, {1, "1"}, {12.34, "12.3"}, {100, "100"}, {999, "999"},
		{1234, "1.23 k"}, {456_000, "456 k"}, {1_500_000, "1.5 M"}, {2e9, "2 G"},
		{math.NaN(), "n/a"}, {math.Inf(1), "∞"},
	}
	for _, c := range cases {
		if got := formatValue(c.v); got != c.want {
			t.Errorf("formatValue(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestFormatRatioAndThousands(t *testing.T) {
	ratios := map[float64]string{0: "0.00×", 1.234: "1.23×", 12.34: "12.3×", 7143.14: "7143×", math.Inf(1): "∞", math.NaN(): "n/a"}
	for r, want := range ratios {
		if got := formatRatio(r); got != want {
			t.Errorf("formatRatio(%v) = %q, want %q", r, got, want)
		}
	}
	numbers := map[int]string{0: "0", 999: "999", 1000: "1,000", 10_000: "10,000", 1_234_567: "1,234,567", -1000: "-1,000"}
	for n, want := range numbers {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
