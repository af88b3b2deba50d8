package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
)

// labelKey is the profiler label that marks the goroutines of the queues being measured.
const labelKey = "bench-queues"

// labelSeq makes each labelled set of queues distinct.
var labelSeq atomic.Int64

// labelled runs create with a fresh profiler label on the calling goroutine and returns the
// label's value. Goroutines inherit the labels of the goroutine that starts them, so every
// goroutine that create starts, and every goroutine those start, carries the label: counting
// them with countLabelled sees the queues' goroutines and nothing else in the process.
func labelled(create func()) string {
	value := strconv.FormatInt(labelSeq.Add(1), 10)
	pprof.Do(context.Background(), pprof.Labels(labelKey, value), func(context.Context) { create() })
	return value
}

// countLabelled returns how many goroutines carry the label value given by labelled, from a
// goroutine profile.
func countLabelled(value string) int {
	var profile bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&profile, 1); err != nil {
		panic(fmt.Sprintf("bench: goroutine profile: %v", err))
	}
	// The text profile lists groups of identical goroutines: "N @ pc pc ...", then their
	// labels on a line "# labels: {...}" when they have some.
	want := strconv.Quote(labelKey) + ":" + strconv.Quote(value)
	count, group := 0, 0
	lines := bufio.NewScanner(&profile)
	for lines.Scan() {
		line := lines.Text()
		if n, _, ok := strings.Cut(line, " @ "); ok {
			group, _ = strconv.Atoi(n)
		} else if labels, ok := strings.CutPrefix(line, "# labels: "); ok && strings.Contains(labels, want) {
			count += group
		}
	}
	return count
}
