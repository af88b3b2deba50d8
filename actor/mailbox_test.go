package actor

import (
	"sync/atomic"
	"testing"
)

// newTestMailbox returns a mailbox with no owner: the test collects and recycles by hand.
func newTestMailbox() *mailbox[int] {
	b := mailbox[int]{wake: make(chan struct{}, 1), taken: new(atomic.Uint64)}
	return &b
}

// putItems puts an Add of each of the items from..to-1.
func putItems(b *mailbox[int], from, to int) {
	for i := from; i < to; i++ {
		b.put(command[int]{op: opAdd, item: i}, true)
	}
}

// chainItems returns the items of a chain, in order, and the capacity of each segment.
func chainItems(chain *segment[int]) (items, caps []int) {
	for s := chain; s != nil; s = s.next {
		for _, c := range s.commands {
			items = append(items, c.item)
		}
		caps = append(caps, cap(s.commands))
	}
	return items, caps
}

func TestMailboxKeepsOrderAcrossSegments(t *testing.T) {
	b := newTestMailbox()
	putItems(b, 0, 1000)
	items, caps := chainItems(b.collect(false))
	for i, item := range items {
		if item != i {
			t.Fatalf("command %d holds item %d", i, item)
		}
	}
	if len(items) != 1000 {
		t.Fatalf("took %d commands, want 1000", len(items))
	}
	wantCaps := []int{8, 16, 32, 64, 128, 256, 256, 256}
	if len(caps) != len(wantCaps) {
		t.Fatalf("segments of %v, want %v", caps, wantCaps)
	}
	for i := range caps {
		if caps[i] != wantCaps[i] {
			t.Fatalf("segments of %v, want %v", caps, wantCaps)
		}
	}
	if b.collect(false) != nil {
		t.Fatal("a second collect found commands")
	}
}

func TestMailboxReusesItsSegments(t *testing.T) {
	b := newTestMailbox()
	putItems(b, 0, 1000)
	b.recycle(b.collect(false))
	allocs := testing.AllocsPerRun(20, func() {
		putItems(b, 0, 1000)
		b.recycle(b.collect(false))
	})
	if allocs != 0 {
		t.Errorf("a busy mailbox allocated %v times per burst of 1000 commands", allocs)
	}
}

func TestMailboxRecycleReleasesItems(t *testing.T) {
	b := mailbox[*int]{wake: make(chan struct{}, 1), taken: new(atomic.Uint64)}
	for range 20 {
		b.put(command[*int]{op: opAdd, item: new(int)}, true)
	}
	chain := b.collect(false)
	b.recycle(chain)
	for s := chain; s != nil; s = s.next {
		for i, c := range s.commands[:cap(s.commands)] {
			if c.item != nil {
				t.Fatalf("a recycled segment still holds an item in slot %d", i)
			}
		}
	}
}

func TestIdleMailboxKeepsTwoSegments(t *testing.T) {
	b := newTestMailbox()
	putItems(b, 0, 1000) // segments of 8, 16, 32, 64, 128, 256, 256 and 256 commands
	b.recycle(b.collect(false))
	if b.collect(false) != nil { // finds nothing: the owner goes to sleep
		t.Fatal("collected commands from an empty mailbox")
	}
	kept := map[*segment[int]]bool{}
	for s := b.free; s != nil; s = s.next {
		kept[s] = true
		if cap(s.commands) != maxSegment {
			t.Errorf("an idle mailbox keeps a segment of %d commands, want the largest (%d)", cap(s.commands), maxSegment)
		}
	}
	if len(kept) != 2 {
		t.Fatalf("an idle mailbox keeps %d segments, want 2", len(kept))
	}
	// The segments kept serve the next commands, even while the owner applies the first.
	putItems(b, 0, 1)
	chain := b.collect(false)
	putItems(b, 0, 1)
	if !kept[chain] || !kept[b.head] {
		t.Error("a command took a new segment while two were kept")
	}
	b.recycle(chain)
}

// A queue whose bursts are separated by sleeps, as a retry loop's are, reuses what it kept.
func TestMailboxReusesItsSegmentsAcrossSleeps(t *testing.T) {
	b := newTestMailbox()
	burst := func() {
		putItems(b, 0, 2*maxSegment)
		b.recycle(b.collect(false))
		if b.collect(false) != nil { // the owner goes to sleep
			t.Fatal("collected commands from an empty mailbox")
		}
	}
	burst()
	if allocs := testing.AllocsPerRun(20, burst); allocs != 0 {
		t.Errorf("a burst of %d commands after a sleep allocated %v times", 2*maxSegment, allocs)
	}
}

func TestMailboxNeverUsedHoldsNoSegment(t *testing.T) {
	b := newTestMailbox()
	if b.collect(false) != nil || b.head != nil || b.free != nil {
		t.Error("a mailbox never used holds a segment")
	}
}

func TestMailboxPutWakesASleepingOwnerOnce(t *testing.T) {
	b := newTestMailbox()
	b.put(command[int]{op: opAdd}, true)
	if len(b.wake) != 0 {
		t.Error("a put sent a token before the owner ever slept")
	}
	b.recycle(b.collect(false))
	if b.collect(false) != nil { // finds nothing: the owner goes to sleep
		t.Fatal("collected commands from an empty mailbox")
	}
	b.put(command[int]{op: opAdd}, false)
	if len(b.wake) != 0 || b.sleeping {
		t.Error("the owner's own post sent a token, or left the owner marked asleep")
	}
	b.recycle(b.collect(false))
	b.collect(false)
	b.put(command[int]{op: opAdd}, true)
	if len(b.wake) != 1 {
		t.Error("the first put after the owner fell asleep sent no token")
	}
	b.put(command[int]{op: opAdd}, true)
	if len(b.wake) != 1 || b.sleeping {
		t.Error("a second put woke an owner already woken")
	}
}
