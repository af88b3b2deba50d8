package timing

import (
	"testing"
	"time"
)

// The rules are tested by step tables at fixed instants, as golang.org/x/time/rate's are:
// each step is an observation at t0 plus at, and the decisions it must yield.

// t0 falls on a whole second, as the records' renewTime counts.
var t0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// subSecond is the module's example timing: 2 s Leases renewed every 250 ms.
var subSecond = Durations{LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond, MaxClockDrift: 0.1}

const ms = time.Millisecond

// window is subSecond's hold window, 1.818 s.
var window = subSecond.HoldWindow()

// holdStep is one observation of a Hold, and what it must yield. A start step notes a write
// begun at at; an answer step, that it succeeded at at, and checks the tenure it returns;
// an end step ends the campaign.
type holdStep struct {
	op        string // "start", "answer", "end"
	at        time.Duration
	record    string // start: the record's JSON, as the electors compare it
	acquiring bool   // start: the Lease it replaces names another holder or none
	// answer: the tenure it must return, and what the write did to it.
	number uint64
	change Change
	until  time.Duration // the end of the hold window, after t0
}

func (c Change) String() string {
	return [...]string{"Extended", "Began", "Interrupted"}[c]
}

// runHold applies steps to a new Hold of d, failing on the first answer that differs.
func runHold(t *testing.T, d Durations, steps []holdStep) {
	t.Helper()
	h := NewHold(d)
	for i, s := range steps {
		at := t0.Add(s.at)
		switch s.op {
		case "start":
			h.Started(at, []byte(s.record), h.RenewTime(at), s.acquiring)
		case "end":
			h.End()
		case "answer":
			got, change := h.Succeeded(at)
			want := Tenure{Number: s.number, Began: got.Began, Until: t0.Add(s.until), KeysEnd: t0.Add(s.until).Add(-d.DrainBudget())}
			if got != want || change != s.change {
				t.Fatalf("step %d (%s at +%v): got tenure %d until +%v, %v; want %d until +%v, %v",
					i, s.op, s.at, got.Number, got.Until.Sub(t0), change, s.number, s.until, s.change)
			}
			if h.Tenure() != got {
				t.Fatalf("step %d: Tenure() = %+v, want what Succeeded returned, %+v", i, h.Tenure(), got)
			}
		}
	}
}

// TestHoldWindowCountsFromFirstWrite: renewals within one second of renewTime write one
// record, and the window counts from the first of them; an attempt whose answer was lost
// counts too.
func TestHoldWindowCountsFromFirstWrite(t *testing.T) {
	runHold(t, subSecond, []holdStep{
		{op: "start", at: 0, record: "a@0", acquiring: true},
		{op: "answer", at: 10 * ms, number: 1, change: Began, until: window},
		{op: "start", at: 250 * ms, record: "a@0"},
		{op: "answer", at: 260 * ms, number: 1, change: Extended, until: window},
		{op: "start", at: 1000 * ms, record: "a@1"}, // a new second: a new record
		{op: "answer", at: 1010 * ms, number: 1, change: Extended, until: time.Second + window},
		{op: "start", at: 2000 * ms, record: "a@2"}, // its answer was lost: it counts all the same
		{op: "start", at: 2250 * ms, record: "a@2"},
		{op: "answer", at: 2260 * ms, number: 1, change: Extended, until: 2*time.Second + window},
	})
}

// TestTenureRule steps through every way a write may begin a tenure.
func TestTenureRule(t *testing.T) {
	runHold(t, subSecond, []holdStep{
		// The campaign acquires the bucket: the first tenure.
		{op: "start", at: 0, record: "a@0", acquiring: true},
		{op: "answer", at: 10 * ms, number: 1, change: Began, until: window},
		{op: "start", at: 1000 * ms, record: "a@1"},
		{op: "answer", at: 1010 * ms, number: 1, change: Extended, until: time.Second + window},
		// A renewal begun in time, answered once the window had closed (at +2.818 s): the
		// process paused with the answer on its way. Another replica may have held the bucket
		// meanwhile: a new tenure, whose window (counted from +1 s, the same record) has closed
		// already: it never opens.
		{op: "start", at: 1250 * ms, record: "a@1"},
		{op: "answer", at: 5000 * ms, number: 2, change: Interrupted, until: time.Second + window},
		// The next renewal succeeds over the replica's own record: the tenure before never
		// opened, so this one begins, interrupting nothing.
		{op: "start", at: 5250 * ms, record: "a@5"},
		{op: "answer", at: 5260 * ms, number: 3, change: Began, until: 5250*ms + window},
		// client-go's elector acquires the Lease inside its renew loop (another replica held
		// it, then released it): a new tenure, although the window was open.
		{op: "start", at: 5500 * ms, record: "a@5'", acquiring: true},
		{op: "answer", at: 5510 * ms, number: 4, change: Interrupted, until: 5500*ms + window},
		// A renewal answered just before the window closes continues the tenure.
		{op: "start", at: 6000 * ms, record: "a@6"},
		{op: "answer", at: 5500*ms + window - time.Nanosecond, number: 4, change: Extended, until: 6000*ms + window},
		// The campaign ends (the elector stopped); the next campaign's first success begins a
		// tenure even over the replica's own record, and reports no interruption.
		{op: "end"},
		{op: "start", at: 6500 * ms, record: "a@6"},
		{op: "answer", at: 6510 * ms, number: 5, change: Began, until: 6000*ms + window},
	})
}

// TestRenewTimeNeverGoesBack: a wall clock that steps back cannot bring back an old record.
func TestRenewTimeNeverGoesBack(t *testing.T) {
	h := NewHold(subSecond)
	for i, s := range []struct {
		wall, want time.Duration // after t0
	}{
		{0, 0},
		{2 * time.Second, 2 * time.Second},
		{-5 * time.Second, 2 * time.Second}, // stepped back: the last renewTime again
		{2500 * ms, 2500 * ms},
	} {
		got := h.RenewTime(t0.Add(s.wall))
		if !got.Equal(t0.Add(s.want)) {
			t.Errorf("step %d: got renewTime +%v, want +%v", i, got.Sub(t0), s.want)
		}
		h.Started(t0, []byte("r"), got, false)
	}
}

// TestTenureHeldAndLapsed: an item may be acted on only in its own tenure and while the
// window is open; the keys' end comes the drain budget before.
func TestTenureHeldAndLapsed(t *testing.T) {
	budget := subSecond.DrainBudget()
	tenure := Tenure{Number: 3, Began: t0, Until: t0.Add(window), KeysEnd: t0.Add(window - budget)}
	for i, s := range []struct {
		number uint64
		at     time.Duration
		held   bool
		lapsed bool
	}{
		{3, 0, true, false},
		{3, window - budget - time.Nanosecond, true, false},
		{3, window - budget, true, true}, // the keys' contexts end, the window is still open
		{3, window - time.Nanosecond, true, true},
		{3, window, false, true},
		{2, 0, false, false}, // an item of the tenure before: fenced for good
		{0, 0, false, false},
	} {
		until, held := tenure.Held(s.number, t0.Add(s.at))
		lapsed := tenure.Lapsed(t0.Add(s.at))
		if held != s.held || lapsed != s.lapsed {
			t.Errorf("step %d: got held %v, lapsed %v; want %v, %v", i, held, lapsed, s.held, s.lapsed)
		}
		if s.number == tenure.Number && !until.Equal(tenure.Until) {
			t.Errorf("step %d: got until %v, want the window's end %v", i, until, tenure.Until)
		}
	}
	if !(Tenure{}).Lapsed(t0) {
		t.Error("no tenure: not lapsed")
	}
}
