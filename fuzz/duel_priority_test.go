package fuzz

import (
	"fmt"
	"testing"
	"time"

	"github.com/actorqueue/workqueue"
)

// The duel between a priority queue and prioModel, and its calls that only a priority queue
// has.

// priorityKind is one way to build a priority queue.
type priorityKind int

const (
	defaultLimiter priorityKind = iota // no RateLimiter: controller-runtime's default
	ownLimiter                         // a limiter the input decodes
	withMetrics                        // that, and metrics: callers wait for every command
	priorityKinds
)

// newPriorityDuel decodes a way to build a priority queue from in, and returns the duel
// between it and the model (see newDuel).
func newPriorityDuel[T comparable](t *testing.T, in *input) *duel[T] {
	kind := priorityKind(in.pick(int(priorityKinds)))
	spec := limiterSpec{kind: exponential, a: 5 * time.Millisecond, b: 1000 * time.Second}
	config := workqueue.TypedPriorityQueueConfig[T]{}
	name := "NewTypedPriorityQueue"
	if kind != defaultLimiter {
		spec = decodeLimiter(in, tame, 2)
		config.RateLimiter = build[T](spec)
		name += "(RateLimiter)"
	}
	if kind == withMetrics {
		config.Name, config.MetricsProvider = "fuzz", quietMetrics{}
		name = "NewTypedPriorityQueue(RateLimiter, metrics)"
	}
	return startDuel(t, name, rateLimiting, kind == withMetrics,
		workqueue.NewTypedPriorityQueue(config), newPrioModel(ref[T](spec)), &spec)
}

// priorityOf returns q as a priority queue.
func priorityOf[T comparable](q workqueue.TypedInterface[T]) workqueue.TypedPriorityInterface[T] {
	return q.(workqueue.TypedPriorityInterface[T])
}

func (d *duel[T]) addWithOpts(o workqueue.AddOpts, items []T) {
	desc := fmt.Sprintf("AddWithOpts({After: %v, RateLimited: %v, Priority: %s}, %#v)", o.After, o.RateLimited, describePriority(o.Priority), items)
	d.call(desc, "AddWithOpts", func(q workqueue.TypedInterface[T]) string {
		priorityOf(q).AddWithOpts(o, items...)
		return ""
	})
}

// describePriority returns p's value, or nil.
func describePriority(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// getWithPriority starts a GetWithPriority on each side, then lets wait pass, as get does.
func (d *duel[T]) getWithPriority(wait time.Duration) []event[T] {
	d.spawn("GetWithPriority", func(q workqueue.TypedInterface[T]) event[T] {
		item, priority, shutdown := priorityOf(q).GetWithPriority()
		if shutdown {
			return event[T]{text: ": shutdown"}
		}
		return event[T]{text: fmt.Sprintf(": %#v at priority %d", item, priority), item: item, got: true}
	})
	time.Sleep(wait)
	return d.settle(fmt.Sprintf("GetWithPriority, wait %v", wait), "", "")
}
