package fuzz

import (
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorqueue/workqueue"
)

// The tests in this file pin down library bugs the fuzz targets found, fixed in c2c135a; the
// crashers stay in the seed corpora.

// TestDelayedAddOfATakenItemIsNotLost: a getter's take reaches the owner with the next
// command. When a delayed add falls due before any command came since the Get, the owner
// still counts the item as waiting, so the add is dropped as a duplicate instead of marking
// the item for processing again: client-go processes it again after Done.
func TestDelayedAddOfATakenItemIsNotLost(t *testing.T) {
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

// TestNaNItemsWithCustomStorageAreHandedOut: a NaN can be a map key, though it never finds itself
// again, and client-go hands it out like any other item, as this library's queues do with
// their own storage. With a custom storage, Get panics with "the queue's storage popped an
// item it was not holding", and the item is lost.
func TestNaNItemsWithCustomStorageAreHandedOut(t *testing.T) {
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

// TestForeignDelayingQueueAddAfterChecksItems: a delaying queue around a queue of
// another package lets its inner queue check items. AddAfter after shutdown returns without
// panicking for an unhashable item, and with a delay of zero or less, the panic names Add.
func TestForeignDelayingQueueAddAfterChecksItems(t *testing.T) {
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

// TestForeignRateLimitingQueueSurvivesUnhashableItems: a rate-limiting queue around a
// delaying queue of another package calls its limiter under a mutex without checking the item
// first. An unhashable item panics inside the limiter with a runtime error, and in
// AddRateLimited the mutex stays locked: every later AddRateLimited, Forget or NumRequeues
// blocks forever.
func TestForeignRateLimitingQueueSurvivesUnhashableItems(t *testing.T) {
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

// TestGroupedPriorityQueueOrdersExtremePriorities: a grouped priority queue kept the priorities
// that have items in order with a comparison that subtracted them, which overflowed when they
// were far apart: an item at priority math.MinInt went out before one at priority 1. Found by
// FuzzPriorityGroups (seed extreme-priorities), fixed in 8d41a07.
func TestGroupedPriorityQueueOrdersExtremePriorities(t *testing.T) {
	q := workqueue.NewTypedPriorityQueue(workqueue.TypedPriorityQueueConfig[int]{Group: func(int) string { return "g" }})
	defer q.ShutDown()
	low, high := math.MinInt, 1
	q.AddWithOpts(workqueue.AddOpts{Priority: &low}, 2)
	q.AddWithOpts(workqueue.AddOpts{Priority: &high}, 4)
	if item, priority, _ := q.GetWithPriority(); item != 4 {
		t.Errorf("GetWithPriority = %d at priority %d, want 4 at priority 1", item, priority)
	}
}
