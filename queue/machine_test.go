package queue

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/metrics"
)

// mstep is one call on a Machine at an instant (ms after t0), the answer expected from it,
// the metric events it returns, and the queue's length, processing and delayed counts after it.
type mstep struct {
	at                   int // ms after t0
	call, want, events   string
	queued, doing, delay int
}

// runMachine plays steps on m, reporting every difference as "step %d: got %v, want %v".
func runMachine(t *testing.T, m *Machine[string], steps []mstep) {
	t.Helper()
	for i, st := range steps {
		now := t0.Add(time.Duration(st.at) * time.Millisecond)
		if got := machineCall(m, st.call, now); got != st.want {
			t.Errorf("step %d (%s): got %q, want %q", i, st.call, got, st.want)
		}
		if got := formatEvents(m.Events()); got != st.events {
			t.Errorf("step %d (%s): events %q, want %q", i, st.call, got, st.events)
		}
		if m.Len() != st.queued || m.Processing() != st.doing || m.Delayed() != st.delay {
			t.Errorf("step %d (%s): Len %d, Processing %d, Delayed %d; want %d, %d, %d",
				i, st.call, m.Len(), m.Processing(), m.Delayed(), st.queued, st.doing, st.delay)
		}
	}
}

// machineCall performs one call at now and formats its answer.
func machineCall(m *Machine[string], c string, now time.Time) string {
	var verb, arg string
	fmt.Sscan(c, &verb, &arg)
	switch verb {
	case "add":
		m.Add(arg, now)
		return ""
	case "after": // "after x/300": x due 300 ms after now
		item, ms, _ := strings.Cut(arg, "/")
		var d int
		fmt.Sscan(ms, &d)
		m.AddAfter(item, now.Add(time.Duration(d)*time.Millisecond))
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
	case "reserve":
		item, seq, ok := m.Reserve(now)
		if !ok {
			return "none"
		}
		return fmt.Sprintf("%s#%d", item, seq)
	case "take":
		var upTo uint64
		fmt.Sscan(arg, &upTo)
		m.Take(upTo)
		return fmt.Sprint(m.Started())
	case "took":
		m.Took(arg, now)
		return ""
	case "handout":
		item, _, ok := m.HandOut(now)
		if !ok {
			return "none"
		}
		return item
	case "giveback":
		m.GiveBack(arg, 0, now)
		return ""
	case "done":
		return fmt.Sprint(m.Done(arg))
	case "shutdown":
		return fmt.Sprint(m.ShutDown())
	case "forwarded":
		return fmt.Sprint(m.Forwarded())
	case "oldest":
		since, _ := m.OldestSince()
		return now.Sub(since).String()
	}
	panic("unknown step " + c)
}

// formatEvents formats metric events as "added x, started x@10, delayed 2": a start or a finish
// with the instant, in ms after t0, that the metrics measure from.
func formatEvents(events []metrics.Event[string]) string {
	names := map[metrics.Kind]string{
		metrics.KindAdded: "added", metrics.KindStarted: "started", metrics.KindReturned: "returned",
		metrics.KindFinished: "finished", metrics.KindDelayed: "delayed",
	}
	var out []string
	for _, e := range events {
		if e.Kind == metrics.KindDelayed {
			out = append(out, fmt.Sprintf("delayed %d", e.N))
			continue
		}
		event := names[e.Kind] + " " + e.Item
		if e.Kind == metrics.KindStarted || e.Kind == metrics.KindFinished {
			event += fmt.Sprintf("@%d", e.Since.Sub(t0).Milliseconds())
		}
		out = append(out, event)
	}
	return strings.Join(out, ", ")
}

func TestMachine(t *testing.T) {
	m := NewMachine(MachineConfig[string]{Origin: t0, Metrics: true})
	runMachine(t, m, []mstep{
		{call: "add a", events: "added a", queued: 1},
		{call: "add a", queued: 1}, // stingy: once
		{call: "after b/300", events: "delayed 1", queued: 1, delay: 1},
		{call: "after b/500", queued: 1, delay: 1}, // keeps the earlier instant
		{call: "nextdue", want: "300", queued: 1, delay: 1},
		{at: 299, call: "due", queued: 1, delay: 1}, // not yet: nothing
		{at: 301, call: "due", events: "added b, delayed 0", queued: 2},
		{at: 301, call: "nextdue", want: "none", queued: 2},
		// Two steps of a get: reserved items still count as queued; a take starts them.
		{at: 310, call: "reserve", want: "a#1", queued: 2},
		{at: 320, call: "reserve", want: "b#2", queued: 2},
		{at: 330, call: "add a", queued: 2}, // reserved, so still waiting: no add
		{at: 340, call: "take 1", want: "1", queued: 1, doing: 1},
		{at: 340, call: "took a", events: "started a@0", queued: 1, doing: 1},        // latency from its first add
		{at: 350, call: "add a", events: "added a", queued: 1, doing: 1},             // in processing: again after Done
		{at: 400, call: "oldest", want: "90ms", queued: 1, doing: 1},                 // measured from the reservation
		{at: 410, call: "done a", want: "true", events: "finished a@340", queued: 2}, // requeued, added at 350
		{at: 420, call: "done a", want: "false", queued: 2},                          // not in processing: nothing
		{at: 430, call: "take 2", want: "2", queued: 1, doing: 1},
		{at: 440, call: "handout", want: "a", events: "started a@350", queued: 0, doing: 2},
		{at: 450, call: "giveback a", events: "returned a", queued: 1, doing: 1},
		{at: 460, call: "handout", want: "a", events: "started a@450", queued: 0, doing: 2}, // given back at 450
		{at: 470, call: "handout", want: "none", doing: 2},
		{at: 480, call: "after c/100", events: "delayed 1", doing: 2, delay: 1},
		{at: 490, call: "shutdown", want: "true", events: "delayed 0", doing: 2},
		{at: 500, call: "shutdown", want: "false", doing: 2},
		{at: 510, call: "add d", doing: 2},     // ignored once shut down
		{at: 520, call: "after e/1", doing: 2}, // so is a delay
		{at: 530, call: "nextdue", want: "none", doing: 2},
		{at: 540, call: "done a", want: "true", events: "finished a@460", doing: 1}, // Done works on
	})
}

func TestMachineWithoutMetricsReturnsNoEvents(t *testing.T) {
	m := NewMachine(MachineConfig[string]{Origin: t0})
	runMachine(t, m, []mstep{
		{call: "add a", queued: 1},
		{call: "after b/1", queued: 1, delay: 1},
		{at: 1, call: "due", queued: 2},
		{at: 2, call: "handout", want: "a", queued: 1, doing: 1},
		{at: 3, call: "done a", want: "true", queued: 1},
	})
}

func TestForwardingMachineHandsDueItemsBack(t *testing.T) {
	m := NewMachine(MachineConfig[string]{Origin: t0, Forward: true})
	runMachine(t, m, []mstep{
		{call: "after a/10", delay: 1},
		{call: "after b/5", delay: 2},
		{at: 10, call: "nextdue", want: "5", delay: 2},
		{at: 10, call: "due"},
		{at: 10, call: "forwarded", want: "[b a]"}, // earliest first, and nothing queued here
		{at: 10, call: "forwarded", want: "[]"},
	})
}

func TestScheduleTicks(t *testing.T) {
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	var s Schedule
	s.TickFrom(t0)
	steps := []struct {
		call       string
		at         int
		inFlight   bool
		want       bool
		tick, beat int // the next tick and heartbeat after the call, ms after t0; -1: none
	}{
		{call: "tick", at: 700, want: false, tick: -1, beat: -1}, // nothing started: no tick
		{call: "started", at: 700, tick: 1000, beat: -1},         // on the period from t0
		{call: "tick", at: 999, want: false, tick: 1000, beat: -1},
		{call: "tick", at: 1200, inFlight: true, want: true, tick: 1500, beat: -1},
		{call: "tick", at: 1500, want: true, tick: -1, beat: -1}, // the last, once none is in flight
		{call: "heartbeat", at: 2000, tick: -1, beat: 12000},
		{call: "beat", at: 11999, tick: -1, beat: 12000},
		{call: "beat", at: 35000, tick: -1, beat: 42000}, // missed beats are skipped
		{call: "stop", at: 36000, tick: -1, beat: -1},
		{call: "started", at: 37000, tick: -1, beat: -1}, // nothing after Stop
		{call: "heartbeat", at: 37000, tick: -1, beat: -1},
	}
	for i, st := range steps {
		var got bool
		switch st.call {
		case "tick":
			got = s.Tick(ms(st.at), st.inFlight)
		case "started":
			s.Started(ms(st.at))
		case "heartbeat":
			s.StartHeartbeat(ms(st.at))
		case "beat":
			s.Beat(ms(st.at))
		case "stop":
			s.Stop()
		}
		if got != st.want {
			t.Errorf("step %d (%s): got %v, want %v", i, st.call, got, st.want)
		}
		at := func(t time.Time) int {
			if t.IsZero() {
				return -1
			}
			return int(t.Sub(t0).Milliseconds())
		}
		if tick, beat := at(s.NextTick()), at(s.NextBeat()); tick != st.tick || beat != st.beat {
			t.Errorf("step %d (%s): next tick %d, beat %d; want %d, %d", i, st.call, tick, beat, st.tick, st.beat)
		}
	}
}

func TestScheduleTicksAlways(t *testing.T) {
	var s Schedule
	s.TickFrom(t0)
	s.TickAlways(t0)
	for _, at := range []time.Duration{500, 1000, 1500} {
		if !s.Tick(t0.Add(at*time.Millisecond), false) {
			t.Errorf("no tick at %v with nothing in flight", at)
		}
	}
	if got := s.NextTick().Sub(t0); got != 2*time.Second {
		t.Errorf("next tick at %v, want 2s", got)
	}
}
