package main

import (
	"fmt"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	chartWidth  = 960
	labelWidth  = 380 // the row titles, left of the bars
	barMax      = 440 // the longest bar of a row
	barHeight   = 14
	groupGap    = 18
	chartTop    = 64 // room for the title and the legend
	chartBottom = 24
)

// chartColors colors the implementations, in the order of the table.
var chartColors = []string{"#2b6cb0", "#dd6b20", "#63b3ed", "#38a169"}

// chart draws the throughput rows as groups of horizontal bars, one bar per implementation. Each
// row is scaled to its own longest bar, since the rows' figures differ by orders of magnitude;
// every bar is labelled with its figure.
func (res results) chart(title string) string {
	var rows []row
	for _, r := range res.rows {
		if r.throughput {
			rows = append(rows, r)
		}
	}
	group := len(res.impls)*barHeight + groupGap
	height := chartTop + len(rows)*group + chartBottom

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, height, chartWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", escape(title))
	for i, name := range res.impls {
		x := 10 + i*200
		fmt.Fprintf(&b, `<rect x="%d" y="36" width="12" height="12" fill="%s"/><text x="%d" y="46">%s</text>`+"\n",
			x, chartColors[i%len(chartColors)], x+18, escape(name))
	}
	for n, r := range rows {
		medians := res.summarize(r).medians
		longest := 0.0
		for _, m := range medians {
			if !math.IsNaN(m) {
				longest = math.Max(longest, m)
			}
		}
		y := chartTop + n*group
		fmt.Fprintf(&b, `<text x="10" y="%d">%s</text>`+"\n", y+barHeight+4, escape(r.id+". "+shorten(r.title, 54)))
		for i, m := range medians {
			width := 0.0
			if longest > 0 && !math.IsNaN(m) {
				width = m / longest * barMax
			}
			by := y + i*barHeight
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n",
				labelWidth, by, width, barHeight-2, chartColors[i%len(chartColors)])
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11">%s</text>`+"\n",
				float64(labelWidth)+width+6, by+barHeight-3, escape(formatValue(m)+" "+r.unit))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// shorten cuts s to at most n runes, ending it with an ellipsis when cut.
func shorten(s string, n int) string {
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	return string(runes[:n-1]) + "…"
}

// escape makes s safe as SVG text.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
