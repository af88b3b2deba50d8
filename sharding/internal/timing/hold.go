package timing

import (
	"bytes"
	"time"
)

// Hold is one replica's hold on one bucket, as its writes of the bucket's Lease naming it
// establish it: the hold window, and the tenure it belongs to. Make it with NewHold; it lives
// as long as the bucket's campaigns, one after another.
//
// # The hold window
//
// client-go's elector takes a bucket over only once LeaseDuration has passed, on its clock,
// since it last saw the Lease's record change, comparing the record's JSON, whose times have
// whole seconds. So two writes within one second of renewTime are one to the others, and they
// count from when they first saw it, after the first write that produced it began. The hold
// window therefore ends HoldWindow after the start of the first of this replica's consecutive
// write attempts that produced the record now stored; an attempt whose answer was lost counts,
// as the server may have applied it. Consecutive is enough because renewTime never goes back
// (RenewTime), so a record, once replaced by a later one of ours, never comes back.
//
// # The tenure rule
//
// An item's hold belongs to the tenure in which it was handed out, and a tenure never spans
// an interval in which this hold window was closed or another replica could have held the
// bucket. So a write that succeeds begins a new tenure, instead of continuing the current one,
// when
//
//   - the campaign has no tenure yet (End was called, or none began): it acquired the bucket;
//   - the Lease it replaced named another holder or none: it acquired the bucket, although
//     client-go's elector may do that inside its renew loop, reporting nothing; or
//   - its answer came once the current tenure's hold window had closed, on this replica's
//     clock: from then on another replica may have acquired the bucket, and this one's
//     keys stopped being handed out.
//
// Otherwise the write replaced this replica's own record within the window, and the server
// applied it at the resourceVersion that record was read or written at, so no other holder
// came in between: the tenure goes on and its window moves on. An acquisition needs another
// holder's window (or a release) to have run out, and this replica's window closes first
// (the others wait LeaseDuration on their clocks), so the second case implies the third within
// the clock-rate assumption; it is checked on its own all the same, from the Lease itself.
type Hold struct {
	window, budget time.Duration

	record    []byte    // the record of the last attempt naming this replica, as electors compare it
	since     time.Time // when the first attempt that wrote record began
	lastRenew time.Time // the renewTime of the last attempt (wall clock, no monotonic reading)
	acquiring bool      // the last attempt replaced a Lease naming another holder or none

	tenure Tenure
	ended  bool // the campaign ended: the next success begins a tenure
}

// Tenure is one unbroken hold of a bucket by this replica (see Hold): a value, as Hold
// returned it at some instant.
type Tenure struct {
	// Number is 1 for the first tenure of the bucket, and one more for each next one; 0 is
	// no tenure at all.
	Number uint64
	// Began is when the answer to the write that began the tenure came.
	Began time.Time
	// Until is the end of the hold window: another replica may hold the bucket from then on.
	Until time.Time
	// KeysEnd is when the keys' contexts end, the drain budget before Until, so that a
	// reconcile that stops within the budget has stopped before Until.
	KeysEnd time.Time
}

// Change is what a write that succeeded did to the tenure.
type Change int

const (
	// Extended: the write continued the tenure, and moved its window on if it wrote a new
	// record.
	Extended Change = iota
	// Began: the write began a tenure that replaces none that had opened: the first of a
	// campaign, or the next after one whose window had closed before it began.
	Began
	// Interrupted: the write began a tenure in place of one whose window had been open. The
	// items of the old one are fenced for good: the bucket was lost meanwhile, or may have
	// been.
	Interrupted
)

// NewHold returns the Hold of a bucket not yet written, for the durations d.
func NewHold(d Durations) Hold {
	return Hold{window: d.HoldWindow(), budget: d.DrainBudget()}
}

// RenewTime returns the renewTime a write naming this replica should carry when the wall clock
// reads wall: wall, or the renewTime of the last attempt if the wall clock has gone back since,
// so that a record the others saw long ago cannot come back (they would count from then).
func (h *Hold) RenewTime(wall time.Time) time.Time {
	if wall.Before(h.lastRenew) {
		return h.lastRenew
	}
	return wall
}

// Started notes a write of the Lease naming this replica, begun at now: record is its
// record's JSON as client-go's electors compare it, renew its renewTime (see RenewTime), and
// acquiring reports whether the Lease it replaces names another holder or none (a Lease
// created by the write names none).
func (h *Hold) Started(now time.Time, record []byte, renew time.Time, acquiring bool) {
	if !bytes.Equal(record, h.record) {
		h.record, h.since = record, now
	}
	h.lastRenew = renew.Round(0)
	h.acquiring = acquiring
}

// Succeeded notes that the write last Started succeeded, its answer coming at now, and returns
// the tenure from now on and what the write did to it (see the tenure rule). A write that
// failed needs no call: it counted when it started, as the server may have applied it, and it
// changes nothing else; the loss of the bucket is the elector's to report.
func (h *Hold) Succeeded(now time.Time) (Tenure, Change) {
	until := h.since.Add(h.window)
	old := h.tenure
	if h.ended || old.Number == 0 || h.acquiring || !now.Before(old.Until) {
		change := Began
		if !h.ended && old.opened() {
			change = Interrupted
		}
		h.tenure = Tenure{Number: old.Number + 1, Began: now, Until: until, KeysEnd: until.Add(-h.budget)}
		h.ended = false
		return h.tenure, change
	}
	if until.After(old.Until) {
		h.tenure.Until, h.tenure.KeysEnd = until, until.Add(-h.budget)
	}
	return h.tenure, Extended
}

// End notes that the campaign ended: its elector stopped. The tenure's window stays as it is
// (its items may act until it closes, as no write of this replica moves it any more), and the
// next write that succeeds, in the next campaign, begins a new tenure.
func (h *Hold) End() { h.ended = true }

// Tenure returns the current tenure: the last one begun, which may have ended.
func (h *Hold) Tenure() Tenure { return h.tenure }

// opened reports whether the tenure's window was open when it began: a write answered after
// the window it gives had closed begins a tenure that never opens.
func (t Tenure) opened() bool { return t.Number != 0 && t.Began.Before(t.Until) }

// Lapsed reports whether, at now, the keys' end has passed: the keys' contexts have ended, and
// keys are set aside rather than handed out until a renewal moves it on. Without a tenure it
// is true.
func (t Tenure) Lapsed(now time.Time) bool { return !now.Before(t.KeysEnd) }

// Held reports whether an item handed out in the tenure numbered n may still be acted on at
// now: n is this tenure, and its hold window is open. It returns the end of the window, or the
// zero time for an item of another tenure.
func (t Tenure) Held(n uint64, now time.Time) (until time.Time, ok bool) {
	if n == 0 || n != t.Number {
		return time.Time{}, false
	}
	return t.Until, now.Before(t.Until)
}
