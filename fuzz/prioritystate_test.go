package fuzz

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/queue/priority"
)

// FuzzPriorityState drives package priority's State, the machine inside every priority queue,
// and prioRef through the same calls, with the time as an argument: no goroutines, no clock,
// so it runs orders of magnitude more inputs than FuzzPriorityQueue. It compares what every
// call returns (Add's report for the metrics included) and, after every call, the counts, the
// next due instant, the oldest hand-out and the items handed out.
func FuzzPriorityState(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &input{data: data}
		s, r := priority.New[int](), newPrioRef[int]()
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		now := start
		var log []string
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("after:\n\t%s\n%s", strings.Join(log, "\n\t"), fmt.Sprintf(format, args...))
		}
		for calls := 0; calls < 1000 && !in.done(); calls++ {
			item := in.pick(6)
			switch in.pick(6) {
			case 0, 1:
				p := choose(in, -1, 0, 0, 1, 2, math.MaxInt, math.MinInt)
				var readyAt time.Time
				if d := in.pick(8); d > 0 {
					readyAt = now.Add(time.Duration(d-3) * time.Millisecond) // due from 2ms ago to 4ms ahead
				}
				got := s.Add(item, p, readyAt)
				want := r.add(item, p, !readyAt.IsZero(), readyAt)
				log = append(log, fmt.Sprintf("Add(%d, %d, %s) at +%v = %+v", item, p, dueText(readyAt, now), now.Sub(start), got))
				if got != (priority.Added{Ready: want.ready, Raised: want.raised, From: want.from, Priority: want.priority}) {
					fail("Add reported %+v, want %+v", got, want)
				}
			case 2:
				now = now.Add(time.Duration(in.pick(4)) * time.Millisecond)
				due := r.due(now)
				if in.pick(2) == 0 {
					due = due[:min(len(due), 1)] // the rest later
				}
				for _, rec := range due {
					got, p, ok := s.PromoteDue(now)
					log = append(log, fmt.Sprintf("PromoteDue(+%v) = %d, %d, %v", now.Sub(start), got, p, ok))
					if !ok || got != rec.item || p != rec.priority {
						fail("PromoteDue = %d at %d, %v; want %d at %d", got, p, ok, rec.item, rec.priority)
					}
					r.promote(rec)
				}
				if len(due) == 0 {
					if got, _, ok := s.PromoteDue(now); ok {
						fail("PromoteDue = %d, but nothing is due", got)
					}
				}
			case 3, 4:
				got, p, ok := s.HandOut(now)
				want, wantP, wantOK := r.handOut(now)
				log = append(log, fmt.Sprintf("HandOut = %d, %d, %v", got, p, ok))
				if got != want || p != wantP || ok != wantOK {
					fail("HandOut = %d, %d, %v; want %d, %d, %v", got, p, ok, want, wantP, wantOK)
				}
			case 5:
				got, want := s.Done(item), r.done(item)
				log = append(log, fmt.Sprintf("Done(%d) = %v", item, got))
				if got != want {
					fail("Done = %v, want %v", got, want)
				}
			}
			if problem := compareState(s, r); problem != "" {
				fail("%s", problem)
			}
		}
	})
}

// compareState compares what s and r tell of their contents, and returns the first
// difference, or "".
func compareState(s *priority.State[int], r *prioRef[int]) string {
	ready, waiting, locked, held := r.counts()
	if s.Len() != ready || s.Waiting() != waiting || s.Processing() != locked || s.Blocked() != held {
		return fmt.Sprintf("Len, Waiting, Processing, Blocked = %d, %d, %d, %d; want %d, %d, %d, %d",
			s.Len(), s.Waiting(), s.Processing(), s.Blocked(), ready, waiting, locked, held)
	}
	at, ok := s.NextDue()
	if want, wantOK := r.nextDue(); ok != wantOK || !at.Equal(want) {
		return fmt.Sprintf("NextDue = %v, %v; want %v, %v", at, ok, want, wantOK)
	}
	since, ok := s.OldestSince()
	if want, wantOK := r.oldestSince(); ok != wantOK || !since.Equal(want) {
		return fmt.Sprintf("OldestSince = %v, %v; want %v, %v", since, ok, want, wantOK)
	}
	got, want := s.InProcessing(), slices.Collect(maps.Keys(r.locked))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Sprintf("InProcessing = %v, want %v", got, want)
	}
	return ""
}

// dueText describes readyAt as an add's argument at now.
func dueText(readyAt, now time.Time) string {
	if readyAt.IsZero() {
		return "ready"
	}
	return fmt.Sprintf("due in %v", readyAt.Sub(now))
}
