package priority

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAddBatch: a step table of batches. Each step adds a batch at t0+at ms and then reads the
// items' entries: "item/priority@ms", ms being when it is ready (0: at once).
func TestAddBatch(t *testing.T) {
	waits := map[string]time.Duration{"a": 30 * time.Millisecond, "b": 5 * time.Millisecond}
	wait := func(item string) time.Duration { return waits[item] }
	giveUpOn := func(gone ...string) func(string) bool {
		return func(item string) bool { return strings.Contains(strings.Join(gone, ","), item) }
	}
	steps := []struct {
		name     string
		shutDown bool // ShutDown before the batch
		b        Batch[string]
		gaveUp   string
		queued   int    // Len right after the batch
		entries  string // of a machine not shut down (a shut-down one hands nothing out)
	}{
		{name: "plain", b: Batch[string]{Items: []string{"a", "b"}, Priority: 2}, entries: "a/2@0 b/2@0"},
		{name: "after", b: Batch[string]{Items: []string{"a"}, After: 10 * time.Millisecond}, entries: "a/0@10"},
		{name: "after below zero: at once", b: Batch[string]{Items: []string{"a"}, After: -time.Second}, entries: "a/0@0"},
		{name: "rate limited: the limiter's wait", b: Batch[string]{Items: []string{"a", "b"}, Wait: wait}, entries: "b/0@5 a/0@30"},
		{name: "rate limited: After when shorter", b: Batch[string]{Items: []string{"a", "b"}, After: 10 * time.Millisecond, Wait: wait}, entries: "b/0@5 a/0@10"},
		{name: "delays asked by the caller win", b: Batch[string]{Items: []string{"a", "b"}, Delays: []time.Duration{0, 7 * time.Millisecond}, Wait: wait}, entries: "a/0@0 b/0@7"},
		{name: "given up: not added", b: Batch[string]{Items: []string{"a", "b"}, GiveUp: giveUpOn("a")}, gaveUp: "a", entries: "b/0@0"},
		{name: "after ShutDown: nothing", shutDown: true, b: Batch[string]{Items: []string{"a"}}, entries: ""},
		{name: "after ShutDown: counted, given up", shutDown: true, b: Batch[string]{Items: []string{"a", "b"}, Wait: wait, GiveUp: giveUpOn("b")}, gaveUp: "b", entries: ""},
		{name: "after ShutDown: asked by the caller, added", shutDown: true, b: Batch[string]{Items: []string{"a", "b"}, Delays: []time.Duration{0, 0}, GiveUp: giveUpOn("a")}, gaveUp: "a", queued: 1},
	}
	for _, st := range steps {
		m := NewMachine(New[string](), false)
		if st.shutDown {
			m.ShutDown()
		}
		gaveUp := m.AddBatch(st.b, t0)
		if got := strings.Join(gaveUp, ","); got != st.gaveUp {
			t.Errorf("%s: gave up on %q, want %q", st.name, got, st.gaveUp)
		}
		if got := m.Len(); got != st.queued && st.shutDown {
			t.Errorf("%s: Len %d, want %d", st.name, got, st.queued)
		}
		if got := handedOut(m); got != st.entries {
			t.Errorf("%s: entries %q, want %q", st.name, got, st.entries)
		}
	}
}

// handedOut lists the machine's items as "item/priority@ms", ms after t0 when each is ready,
// handing each out as it falls due.
func handedOut(m *Machine[string]) string {
	var out []string
	for ms := 0; ms <= 100; ms++ {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		m.Due(now)
		for {
			item, p, ok := m.HandOut(now)
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("%s/%d@%d", item, p, ms))
		}
	}
	return strings.Join(out, " ")
}
