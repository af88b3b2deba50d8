package fuzz

import (
	"math"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
)

// The tests in this file show library bugs the fuzz targets found. They fail until the bugs
// are fixed, so they run only when ACTORQUEUE_KNOWN_BUGS is set:
//
//	ACTORQUEUE_KNOWN_BUGS=1 go test -race -run Known ./fuzz/
//
// FuzzBadInput skips the inputs that hit them (see skipKnownBug). Once a bug is fixed, drop
// its entry in knownBugs and the test's call to knownBug.

// showKnownBugs is set by ACTORQUEUE_KNOWN_BUGS: the tests below run, and the fuzz targets no
// longer steer around the bugs.
var showKnownBugs = os.Getenv("ACTORQUEUE_KNOWN_BUGS") != ""

// knownBug skips t unless ACTORQUEUE_KNOWN_BUGS is set.
func knownBug(t *testing.T) {
	if !showKnownBugs {
		t.Skip("a known library bug; set ACTORQUEUE_KNOWN_BUGS=1 to run")
	}
}

// TestKnownDelayedAddOfATakenItemIsLost: a getter's take reaches the owner with the next
// command. When a delayed add falls due before any command came since the Get, the owner
// still counts the item as waiting, so the add is dropped as a duplicate instead of marking
// the item for processing again: client-go processes it again after Done. FuzzQueue and
// FuzzBadInput steer around it by sending a Len after every Get (see duel.settle).
func TestKnownDelayedAddOfATakenItemIsLost(t *testing.T) {
	knownBug(t)
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedDelayingQueue[string]()
		defer q.ShutDown()
		q.AddAfter("x", time.Millisecond)
		q.Add("x")
		item, _ := q.Get()
		time.Sleep(time.Millisecond) // the delayed add falls due while x is in processing
		synctest.Wait()
		q.Done(item)
		if got := q.Len(); got != 1 {
			t.Errorf("after Done, Len = %d, want 1: x was added again while in processing", got)
		}
	})
}

// knownBugs names, for a subject and a method, the test showing the bug that an unhashable
// item hits there.
var knownBugs = map[string]map[string]string{
	"NewTypedDelayingQueueWithConfig(foreign queue)": {
		"AddAfter": "TestKnownForeignDelayingQueueAddAfterChecksNoItem",
	},
	"NewTypedRateLimitingQueueWithConfig(foreign delaying queue)": {
		"AddRateLimited": "TestKnownForeignRateLimitingQueueLocksUpOnUnhashableItems",
		"Forget":         "TestKnownForeignRateLimitingQueueLocksUpOnUnhashableItems",
		"NumRequeues":    "TestKnownForeignRateLimitingQueueLocksUpOnUnhashableItems",
	},
}

// nanBugs names, for a subject, the test showing the bug that an item holding a NaN hits.
var nanBugs = map[string]string{
	"NewTypedWithConfig(custom storage)": "TestKnownNaNItemsWithCustomStorage",
}

// skipKnownBug skips the test if calling method of the subject with item would hit a known
// bug: if item cannot be a map key and knownBugs lists the call, or if item holds a NaN and
// nanBugs lists the subject.
func skipKnownBug(t *testing.T, subject, method string, item any) {
	switch {
	case !hashable(item):
		if test := knownBugs[subject][method]; test != "" {
			t.Skipf("%s of an unhashable item hits a known bug: %s", method, test)
		}
	case item != item:
		if test := nanBugs[subject]; test != "" {
			t.Skipf("an item holding a NaN hits a known bug: %s", test)
		}
	}
}

// hashable reports whether item can be a map key.
func hashable(item any) bool { return catch(func() { _ = map[any]bool{item: true} }) == "" }

// TestKnownNaNItemsWithCustomStorage: a NaN can be a map key, though it never finds itself
// again, and client-go hands it out like any other item, as this library's queues do with
// their own storage. With a custom storage, Get panics with "the queue's storage popped an
// item it was not holding", and the item is lost.
func TestKnownNaNItemsWithCustomStorage(t *testing.T) {
	knownBug(t)
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[float64]{Queue: new(sliceStorage[float64])})
	defer q.ShutDown()
	q.Add(math.NaN())
	var item float64
	if fault := catch(func() { item, _ = q.Get() }); fault != "" {
		t.Fatalf("Get panicked: %s", fault)
	}
	if !math.IsNaN(item) {
		t.Errorf("Get returned %v, want NaN", item)
	}
}

// TestKnownForeignDelayingQueueAddAfterChecksNoItem: a delaying queue around a queue of
// another package lets its inner queue check items. AddAfter after shutdown returns without
// panicking for an unhashable item, and with a delay of zero or less, the panic names Add.
func TestKnownForeignDelayingQueueAddAfterChecksNoItem(t *testing.T) {
	knownBug(t)
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[any]{
		Queue: foreign[any]{workqueue.NewTyped[any]()},
	})
	if fault := catch(func() { q.AddAfter([]int{1}, 0) }); !strings.HasPrefix(fault, "workqueue: AddAfter: ") {
		t.Errorf("AddAfter(unhashable, 0) panicked with %q, want a workqueue: AddAfter: message", fault)
	}
	q.ShutDown()
	if fault := catch(func() { q.AddAfter([]int{1}, time.Second) }); !strings.HasPrefix(fault, "workqueue: AddAfter: ") {
		t.Errorf("AddAfter(unhashable) after shutdown panicked with %q, want a workqueue: AddAfter: message", fault)
	}
}

// TestKnownForeignRateLimitingQueueLocksUpOnUnhashableItems: a rate-limiting queue around a
// delaying queue of another package calls its limiter under a mutex without checking the item
// first. An unhashable item panics inside the limiter with a runtime error, and in
// AddRateLimited the mutex stays locked: every later AddRateLimited, Forget or NumRequeues
// blocks forever.
func TestKnownForeignRateLimitingQueueLocksUpOnUnhashableItems(t *testing.T) {
	knownBug(t)
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedItemBasedRateLimiter[any](),
		workqueue.TypedRateLimitingQueueConfig[any]{DelayingQueue: foreignDelaying[any]{workqueue.NewTypedDelayingQueue[any]()}})
	defer q.ShutDown()
	calls := []struct {
		method string
		call   func()
	}{
		{"Forget", func() { q.Forget([]int{1}) }},
		{"NumRequeues", func() { q.NumRequeues([]int{1}) }},
		{"AddRateLimited", func() { q.AddRateLimited([]int{1}) }}, // the last: it locks up
	}
	for _, c := range calls {
		if fault := catch(c.call); !strings.HasPrefix(fault, "workqueue: "+c.method+": ") {
			t.Errorf("%s(unhashable) panicked with %q, want a workqueue: %s: message", c.method, fault, c.method)
		}
	}
	// The blocked caller waits on a mutex, which synctest does not count as durably blocked:
	// a watchdog tells.
	answered := make(chan int, 1)
	go func() { answered <- q.NumRequeues("a") }()
	select {
	case <-answered:
	case <-time.After(5 * time.Second):
		t.Fatal("NumRequeues still blocked after 5s, once AddRateLimited panicked on an unhashable item")
	}
}
