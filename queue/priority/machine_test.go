package priority

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/metrics"
)

// mstep is one call on a Machine at an instant (ms after t0), its expected answer and the
// metric events it returns:
//
//	"add a 5 +10ms"  AddWithOpts(a, 5, t0+10ms); "add a" is priority 0, ready now
//	"nextdue"        NextDue()                   → ms after t0, or "none"
//	"due"            Due(now)
//	"out"            HandOut(now)                → "a/5", or "none"
//	"back a 5"       GiveBack(a, 5)
//	"done a"         Done(a)                     → true or false
//	"shutdown"       ShutDown()                  → true or false
//	"len"            Len, Processing, Delayed, Dirty → "1 0 2 0"
type mstep struct {
	at                 int
	call, want, events string
}

func TestMachine(t *testing.T) {
	m := NewMachine(New[string](), true)
	steps := []mstep{
		{call: "add a", events: "added a/0"},
		{call: "add b 2 +10ms", events: "retried"},
		{call: "add a 3", events: "reprioritized 0→3"}, // a ready: raised, and counted no add
		{call: "len", want: "1 0 1 0"},
		{at: 9, call: "nextdue", want: "10"},
		{at: 9, call: "due"}, // not yet: nothing
		{at: 10, call: "due", events: "added b/2"},
		{at: 10, call: "nextdue", want: "none"},
		{at: 11, call: "out", want: "a/3", events: "started a/3"},
		{at: 12, call: "add a 1", events: "added a/1"}, // handed out: a new entry, held until Done
		{at: 13, call: "out", want: "b/2", events: "started b/2"},
		{at: 14, call: "out", want: "none"},
		{at: 14, call: "len", want: "1 2 0 1"},
		{at: 15, call: "back b 2", events: "returned b/2"},
		{at: 16, call: "done a", want: "true", events: "finished a"},
		{at: 17, call: "out", want: "b/2", events: "started b/2"},
		{at: 18, call: "out", want: "a/1", events: "started a/1"},
		{at: 19, call: "add c +5ms", events: "retried"},
		{at: 20, call: "shutdown", want: "true"},
		{at: 21, call: "shutdown", want: "false"},
		{at: 30, call: "nextdue", want: "none"}, // nothing falls due once shut down
		{at: 30, call: "add d"},                 // Add ignores it
		{at: 31, call: "out", want: "none"},     // and nothing is handed out
		{at: 32, call: "done b", want: "true", events: "finished b"},
	}
	for i, st := range steps {
		now := t0.Add(time.Duration(st.at) * time.Millisecond)
		if got := mcall(m, st.call, now); got != st.want {
			t.Errorf("step %d (%s): got %q, want %q", i, st.call, got, st.want)
		}
		if got := mevents(m.Events()); got != st.events {
			t.Errorf("step %d (%s): events %q, want %q", i, st.call, got, st.events)
		}
	}
}

func mcall(m *Machine[string], call string, now time.Time) string {
	f := strings.Fields(call)
	arg := func(i int) string {
		if len(f) > i {
			return f[i]
		}
		return ""
	}
	var p int
	fmt.Sscan(arg(2), &p)
	switch f[0] {
	case "add":
		var readyAt time.Time
		if d := arg(len(f) - 1); strings.HasPrefix(d, "+") {
			dur, _ := time.ParseDuration(d[1:])
			readyAt = t0.Add(dur)
			if len(f) == 3 {
				p = 0
			}
		}
		if f[1] == "d" {
			m.Add("d", now)
			return ""
		}
		m.AddWithOpts(f[1], p, readyAt)
		return ""
	case "nextdue":
		at, ok := m.NextDue()
		if !ok {
			return "none"
		}
		return fmt.Sprint(at.Sub(t0).Milliseconds())
	case "due":
		m.Due(now)
		return ""
	case "out":
		item, p, ok := m.HandOut(now)
		if !ok {
			return "none"
		}
		return fmt.Sprintf("%s/%d", item, p)
	case "back":
		m.GiveBack(f[1], p, now)
		return ""
	case "done":
		return fmt.Sprint(m.Done(f[1]))
	case "shutdown":
		return fmt.Sprint(m.ShutDown())
	case "len":
		return fmt.Sprintf("%d %d %d %d", m.Len(), m.Processing(), m.Delayed(), m.Dirty())
	}
	panic("unknown step " + call)
}

func mevents(events []metrics.Event[string]) string {
	var out []string
	for _, e := range events {
		switch e.Kind {
		case metrics.KindAdded:
			out = append(out, fmt.Sprintf("added %s/%d", e.Item, e.Priority))
		case metrics.KindStarted:
			out = append(out, fmt.Sprintf("started %s/%d", e.Item, e.Priority))
		case metrics.KindReturned:
			out = append(out, fmt.Sprintf("returned %s/%d", e.Item, e.Priority))
		case metrics.KindFinished:
			out = append(out, "finished "+e.Item)
		case metrics.KindReprioritized:
			out = append(out, fmt.Sprintf("reprioritized %d→%d", e.From, e.Priority))
		case metrics.KindRetried:
			out = append(out, "retried")
		}
	}
	return strings.Join(out, ", ")
}

// TestDelay: a rate-limited add waits the limiter's wait, unless its option After is set and
// shorter.
func TestDelay(t *testing.T) {
	for _, c := range []struct{ after, wait, want time.Duration }{
		{0, 2 * time.Second, 2 * time.Second},
		{3 * time.Second, 2 * time.Second, 2 * time.Second},
		{time.Second, 2 * time.Second, time.Second},
		{-time.Second, 2 * time.Second, -time.Second}, // After below zero: at once
		{time.Second, 0, 0},
	} {
		if got := Delay(c.after, c.wait); got != c.want {
			t.Errorf("Delay(After %v, wait %v) = %v, want %v", c.after, c.wait, got, c.want)
		}
	}
}
