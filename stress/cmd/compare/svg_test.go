package main

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
)

// svgNode is enough of SVG to read the chart back.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []svgNode  `xml:",any"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func TestChartDrawsThroughputRowsScaledPerRow(t *testing.T) {
	res := fixture()
	res.rows[0].title = "a <cycle> & more"
	var root svgNode
	if err := xml.Unmarshal([]byte(res.chart("title")), &root); err != nil {
		t.Fatalf("the chart is not well-formed XML: %v", err)
	}
	var bars []float64
	var texts []string
	for _, n := range root.Nodes {
		switch {
		case n.XMLName.Local == "rect" && n.attr("x") == strconv.Itoa(labelWidth):
			w, err := strconv.ParseFloat(n.attr("width"), 64)
			if err != nil {
				t.Fatal(err)
			}
			bars = append(bars, w)
		case n.XMLName.Local == "text":
			texts = append(texts, n.Text)
		}
	}
	// Only row 1 is a throughput row; its medians are 200, 100, 200 and 400.
	want := []float64{barMax / 2, barMax / 4, barMax / 2, barMax}
	if len(bars) != len(want) {
		t.Fatalf("the chart has %d bars, want %d (one per implementation for the one throughput row)", len(bars), len(want))
	}
	for i := range want {
		if bars[i] != want[i] {
			t.Errorf("bar %d is %v long, want %v", i, bars[i], want[i])
		}
	}
	all := strings.Join(texts, "\n")
	for _, s := range []string{"1. a <cycle> & more", "200 items/s", "400 items/s", actorQueue, actorQueuePriority, ctrlRT} {
		if !strings.Contains(all, s) {
			t.Errorf("the chart's text lacks %q:\n%s", s, all)
		}
	}
}
