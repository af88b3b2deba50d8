package queue

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// groupOf names an item's group by the text before its slash.
func groupOf(item string) string {
	g, _, _ := strings.Cut(item, "/")
	return g
}

// popAll reserves and takes every eligible item of s, and returns them in order.
func popAll(s *State[string]) []string {
	var got []string
	for {
		item, seq, ok := s.Reserve(time.Time{})
		if !ok {
			return got
		}
		if _, ok := s.TakeNext(seq); !ok {
			panic("reservation not taken")
		}
		got = append(got, item)
	}
}

func TestGroupedTakesTurns(t *testing.T) {
	s := New[string](NewGrouped(groupOf, 0))
	for i := range 4 {
		s.Add(fmt.Sprintf("big/%d", i))
	}
	s.Add("small/0")
	s.Add("other/0")
	s.Add("big/0") // already waiting: keeps its place
	got := popAll(s)
	want := []string{"big/0", "small/0", "other/0", "big/1", "big/2", "big/3"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestGroupedNewcomerWaitsOneTurnPerGroup(t *testing.T) {
	s := New[string](NewGrouped(groupOf, 0))
	for i := range 1000 {
		s.Add(fmt.Sprintf("big/%d", i))
	}
	for range 10 { // the big group is in mid-burst
		item, seq, _ := s.Reserve(time.Time{})
		s.TakeNext(seq)
		s.Done(item)
	}
	s.Add("small/0")
	got := popAll(s)
	if i := slices.Index(got, "small/0"); i > 1 {
		t.Fatalf("small/0 handed out %dth behind a burst of one other group, want 1st or 2nd", i+1)
	}
}

func TestGroupedLimitHoldsAndReleases(t *testing.T) {
	g := NewGrouped(groupOf, 2)
	s := New[string](g)
	for i := range 5 {
		s.Add(fmt.Sprintf("a/%d", i))
	}
	s.Add("b/0")
	if got := popAll(s); !slices.Equal(got, []string{"a/0", "b/0", "a/1"}) {
		t.Fatalf("handed out %v, want a/0 b/0 a/1", got)
	}
	if s.Len() != 3 || g.limit.Out("a") != 2 {
		t.Fatalf("Len %d, a out %d; want 3 held items, 2 out", s.Len(), g.limit.Out("a"))
	}
	s.Done("b/0") // another group's Done releases nothing
	if got := popAll(s); len(got) != 0 {
		t.Fatalf("handed out %v while a is at its limit", got)
	}
	s.Done("a/0")
	if got := popAll(s); !slices.Equal(got, []string{"a/2"}) {
		t.Fatalf("handed out %v after a Done, want a/2", got)
	}
	// An item added again during its processing goes back into its group on Done, without
	// asking the group function, which now fails.
	s.Add("a/1")
	g.group = func(string) string { panic("asked again") }
	s.Done("a/1")
	s.LiftLimits()
	if got := popAll(s); !slices.Equal(got, []string{"a/3", "a/4", "a/1"}) {
		t.Fatalf("handed out %v after the limit was lifted, want a/3 a/4 a/1", got)
	}
}

func TestGroupedPanickingGroupLeavesStateAsItWas(t *testing.T) {
	s := New[string](NewGrouped(func(item string) string {
		if item == "bad" {
			panic("no group")
		}
		return groupOf(item)
	}, 1))
	s.Add("a/0")
	func() {
		defer func() { _ = recover() }()
		s.Add("bad")
		t.Fatal("Add of an item without a group did not panic")
	}()
	if s.Len() != 1 || s.Pending("bad") {
		t.Fatalf("Len %d, bad pending %v after the panic; want 1, false", s.Len(), s.Pending("bad"))
	}
	if got := popAll(s); !slices.Equal(got, []string{"a/0"}) {
		t.Fatalf("handed out %v, want a/0", got)
	}
}

func TestGroupedGroupsGoOnceDone(t *testing.T) {
	g := NewGrouped(groupOf, 1)
	s := New[string](g)
	for i := range 100 {
		s.Add(fmt.Sprintf("g%d/x", i))
	}
	for _, item := range popAll(s) {
		s.Done(item)
	}
	if len(g.groups) != 0 || len(g.limit.outOf) != 0 || len(g.limit.out) != 0 || len(g.limit.held) != 0 {
		t.Fatalf("%d groups, %d items out, %d counts and %d held kept once all is done",
			len(g.groups), len(g.limit.outOf), len(g.limit.out), len(g.limit.held))
	}
}

func TestNewGroupedRejectsBadInput(t *testing.T) {
	for name, f := range map[string]func(){
		"nil group":      func() { NewGrouped[string](nil, 0) },
		"negative limit": func() { NewGrouped(groupOf, -1) },
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.HasPrefix(fmt.Sprint(p), "workqueue: ") {
					t.Errorf("%s: panic %v, want one with a workqueue: message", name, p)
				}
			}()
			f()
		}()
	}
}
