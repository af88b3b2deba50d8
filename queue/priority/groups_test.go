package priority

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

// handOutAll hands out every item s can hand out, and returns them in order.
func handOutAll(s *State[string]) []string {
	var got []string
	for {
		item, _, ok := s.HandOut(t0)
		if !ok {
			return got
		}
		got = append(got, item)
	}
}

func TestGroupsTakeTurnsWithinAPriority(t *testing.T) {
	s := NewGrouped(groupOf, 0)
	for i := range 3 {
		s.Add(fmt.Sprintf("big/%d", i), 0, time.Time{})
	}
	s.Add("small/0", 0, time.Time{})
	s.Add("urgent/0", 1, time.Time{})
	s.Add("small/1", 0, time.Time{})
	got := handOutAll(s)
	want := []string{"urgent/0", "big/0", "small/0", "big/1", "small/1", "big/2"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestGroupNewcomerWaitsOneTurnPerGroup(t *testing.T) {
	s := NewGrouped(groupOf, 0)
	for i := range 1000 {
		s.Add(fmt.Sprintf("big/%d", i), 0, time.Time{})
	}
	for range 10 {
		item, _, _ := s.HandOut(t0)
		s.Done(item)
	}
	s.Add("small/0", 0, t0.Add(time.Second)) // falls due in mid-burst
	s.PromoteDue(t0.Add(time.Second))
	got := handOutAll(s)
	if i := slices.Index(got, "small/0"); i > 1 {
		t.Fatalf("small/0 handed out %dth behind a burst of one other group, want 1st or 2nd", i+1)
	}
	// A group that has just had its turn does not take another before the others.
	s.Add("big/x", 0, time.Time{})
	s.Add("big/y", 0, time.Time{})
	for _, item := range got {
		s.Done(item)
	}
	s.Add("small/1", 0, time.Time{})
	if got := handOutAll(s); !slices.Equal(got, []string{"big/x", "small/1", "big/y"}) {
		t.Fatalf("order %v, want big/x small/1 big/y", got)
	}
}

func TestGroupLimitHoldsAndReleases(t *testing.T) {
	s := NewGrouped(groupOf, 1)
	for i := range 3 {
		s.Add(fmt.Sprintf("a/%d", i), 0, time.Time{})
	}
	s.Add("b/0", 0, time.Time{})
	if got := handOutAll(s); !slices.Equal(got, []string{"a/0", "b/0"}) {
		t.Fatalf("handed out %v, want a/0 b/0", got)
	}
	if s.Len() != 2 || s.fair.limit.Out("a") != 1 {
		t.Fatalf("Len %d, a out %d; want 2 held, 1 out", s.Len(), s.fair.limit.Out("a"))
	}
	s.Add("a/2", 5, time.Time{}) // raised while held: keeps its group's order only by priority
	s.Done("b/0")
	if got := handOutAll(s); len(got) != 0 {
		t.Fatalf("handed out %v while a is at its limit", got)
	}
	s.Done("a/0")
	if got := handOutAll(s); !slices.Equal(got, []string{"a/2"}) {
		t.Fatalf("handed out %v after a Done, want a/2", got)
	}
	s.Done("a/2")
	if got := handOutAll(s); !slices.Equal(got, []string{"a/1"}) {
		t.Fatalf("handed out %v after a Done, want a/1", got)
	}
	s.Done("a/1")
	if s.Len() != 0 || s.Processing() != 0 || s.fair.limit.Out("a") != 0 || len(s.fair.levels) != 0 {
		t.Fatalf("state left: Len %d, processing %d, a out %d, %d priorities", s.Len(), s.Processing(), s.fair.limit.Out("a"), len(s.fair.levels))
	}
}

func TestGroupPanicLeavesStateAsItWas(t *testing.T) {
	s := NewGrouped(func(item string) string {
		if item == "bad" {
			panic("no group")
		}
		return groupOf(item)
	}, 1)
	s.Add("a/0", 0, time.Time{})
	func() {
		defer func() { _ = recover() }()
		s.Add("bad", 0, time.Time{})
		t.Fatal("Add of an item without a group did not panic")
	}()
	if s.Len() != 1 || len(s.entries) != 1 {
		t.Fatalf("Len %d, %d entries after the panic; want 1, 1", s.Len(), len(s.entries))
	}
}

func TestGroupsAreLetGo(t *testing.T) {
	s := NewGrouped(groupOf, 0)
	for i := range 10000 {
		s.Add(fmt.Sprintf("g%d/x", i), 0, time.Time{})
		item, _, _ := s.HandOut(t0)
		s.Done(item)
	}
	if len(s.fair.levels) != 0 || len(s.fair.active) != 0 {
		t.Fatalf("%d priorities, %d active kept for groups that came and went; want none",
			len(s.fair.levels), len(s.fair.active))
	}
}
