package controllerruntime_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// baseDelay is the first wait of controller-runtime's default rate limiter, which the
// controller passes to NewQueue: 5 ms, doubling with each failure.
const baseDelay = 5 * time.Millisecond

// workload is the scripts of the reconcile scenario: 24 keys that fail 0 to 2 times, a third
// of which then ask to be requeued after 1 to 3 s, some at another priority; half of them take
// 10 ms to reconcile; and one key, slow, that takes 100 ms, so that it is still being
// reconciled when others are done and workers are free.
func workload() map[string]script {
	scripts := map[string]script{}
	for i := range 24 {
		s := script{failures: i % 3, work: time.Duration(i%2) * 10 * time.Millisecond}
		if i%3 == 1 {
			s.requeueAfter = time.Duration(1+i%4) * time.Second
			if i%2 == 0 {
				s.priority = priority(i)
			}
		}
		scripts[fmt.Sprintf("k%02d", i)] = s
	}
	scripts["slow"] = script{work: 100 * time.Millisecond}
	return scripts
}

// resends are the instants, after the workload starts, at which every key is sent again. They
// are not multiples of 5 ms, so that no worker asks for an item and no item falls due at the
// same instant.
var resends = []time.Duration{7 * time.Millisecond, 47 * time.Millisecond}

// reconcileScenario runs the workload on a controller with 3 workers on a queue of kind k. The
// workers first wait in the reconciles of three gate keys while every key is sent once, with a
// priority from -2 to 2, so that the workload starts from the same queue on any kind of queue.
// Every key is sent again at each of resends, with priority 1: it is then being reconciled,
// waiting for a retry or a requeue, ready, or done. It checks what must hold on any queue and
// returns the reconciles of each key.
func reconcileScenario(t *testing.T, k kind) (visits map[string][]visit) {
	synctest.Test(t, func(t *testing.T) {
		scripts := workload()
		keys := slices.Sorted(maps.Keys(scripts))
		gate := make(chan struct{})
		gates := []string{"gate0", "gate1", "gate2"}
		for _, name := range gates {
			scripts[name] = script{gate: gate}
		}
		r := newScripted(scripts)
		c := start(t, k, "reconcile-"+k.name, len(gates), r)
		for _, name := range gates {
			c.send(job{name, 0})
		}
		synctest.Wait()
		for i, name := range keys {
			c.send(job{name, i%5 - 2})
		}
		synctest.Wait()
		close(gate)
		var inflight, succeeded int // keys in each state when they were sent again
		for _, at := range resends {
			time.Sleep(at - time.Since(r.start))
			synctest.Wait()
			for _, name := range keys {
				busy, done := r.state(name)
				if busy {
					inflight++
				}
				if done {
					succeeded++
				}
				c.send(job{name, 1})
			}
		}
		if inflight == 0 || succeeded == 0 {
			t.Errorf("[%s] the keys sent again were %d times being reconciled and %d times done: "+
				"the scenario no longer covers both", k.name, inflight, succeeded)
		}
		time.Sleep(time.Minute) // far longer than any backoff or requeue of the workload
		synctest.Wait()

		r.mu.Lock()
		visits = maps.Clone(r.visits)
		if len(r.overlaps) > 0 {
			t.Errorf("[%s] keys reconciled twice at once: %v", k.name, r.overlaps)
		}
		r.mu.Unlock()
		for _, name := range keys {
			checkVisits(t, k.name, name, scripts[name], visits[name])
		}
		if n := c.queue.Len(); n != 0 {
			t.Errorf("[%s] Len() = %d once everything was reconciled", k.name, n)
		}
		for _, name := range keys {
			if n := c.queue.NumRequeues(reconcile.Request{NamespacedName: key(name)}); n != 0 {
				t.Errorf("[%s] NumRequeues(%s) = %d: the controller did not forget it", k.name, name, n)
			}
		}

		if err := c.stop(); err != nil {
			t.Errorf("[%s] Start returned %v", k.name, err)
		}
		checkShutDown(t, k.name, c)
	})
	return visits
}

// checkVisits checks the reconciles of the key name against its script: the outcomes in the
// script's order, then at most one more success per resend (for an event that came in after
// the key was done or while it was being reconciled); each retry after the rate limiter's
// backoff and the requeue after its delay, unless the key was sent again since the previous
// reconcile began, which makes it ready at once (or once that reconcile ends).
func checkVisits(t *testing.T, kind, name string, s script, visits []visit) {
	t.Helper()
	want := s.outcomes()
	got := strings.Fields(outcomes(visits))
	extra := len(got) - len(want)
	if extra < 0 || extra > len(resends) || !slices.Equal(got[:len(want)], want) ||
		slices.ContainsFunc(got[len(want):], func(o string) bool { return o != "success" }) {
		t.Errorf("[%s] %s was reconciled with the outcomes %v, want %v and at most %d more successes",
			kind, name, got, want, len(resends))
		return
	}
	for n := 1; n < len(visits); n++ {
		prev, next := visits[n-1], visits[n]
		if slices.ContainsFunc(resends, func(at time.Duration) bool { return prev.began <= at && at <= next.began }) {
			continue
		}
		wait := time.Duration(0)
		switch prev.outcome {
		case "error":
			wait = baseDelay << (n - 1)
		case "requeue":
			wait = s.requeueAfter
		}
		if gap := next.began - prev.ended; gap < wait {
			t.Errorf("[%s] %s was reconciled again %v after a reconcile that ended in %s, want %v or more",
				kind, name, gap, prev.outcome, wait)
		}
	}
}

// checkShutDown checks the queue of a stopped controller: it was shut down, and adds coming
// after, as those of an event source or of a worker still finishing, are ignored.
func checkShutDown(t *testing.T, kind string, c *running) {
	t.Helper()
	if !c.queue.ShuttingDown() {
		t.Errorf("[%s] the stopped controller did not shut its queue down", kind)
	}
	late := reconcile.Request{NamespacedName: key("late")}
	c.queue.Add(late)
	c.queue.AddRateLimited(late)
	if n, requeues := c.queue.Len(), c.queue.NumRequeues(late); n != 0 || requeues != 0 {
		t.Errorf("[%s] adds after shutdown were not ignored: Len() = %d, NumRequeues = %d", kind, n, requeues)
	}
}

// TestControllerReconcilesEverything runs the reconcile scenario on actorqueue and on
// controller-runtime's own priority queue: both must reconcile every key through its failures
// and requeues, never the same key twice at once, and stop cleanly (the bubble fails the test
// if a goroutine is left blocked, goleak if one outlives it); and every key must have the same
// outcomes on both. (Not always at the same instants: when an item falls due at the instant a
// worker asks for one, either may come first, in either queue.)
func TestControllerReconcilesEverything(t *testing.T) {
	got := map[string]map[string][]visit{}
	for _, k := range kinds {
		got[k.name] = reconcileScenario(t, k)
	}
	ours, theirs := got["actorqueue"], got["controller-runtime"]
	for _, name := range slices.Sorted(maps.Keys(theirs)) {
		if outcomes(ours[name]) != outcomes(theirs[name]) {
			t.Errorf("%s: actorqueue reconciled it %v, controller-runtime's queue %v", name, ours[name], theirs[name])
		}
	}
}

// TestControllerPriorityOrder holds a controller's only worker in the reconcile of "gate" while
// events queue up with priorities, some twice, then lets it go: the keys must be reconciled by
// priority, highest first, in the order they were queued within a priority, an event raising a
// key's priority moving it behind the keys already at its new priority. Two keys then ask to be
// requeued after the same delay with a Result.Priority, the lower first: the higher must be
// reconciled first when both fall due.
func TestControllerPriorityOrder(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gate := make(chan struct{})
				scripts := map[string]script{
					"gate": {gate: gate},
					"low":  {requeueAfter: time.Second, priority: priority(0)},
					"high": {requeueAfter: time.Second, priority: priority(100)},
				}
				r := newScripted(scripts)
				c := start(t, k, "order-"+k.name, 1, r)
				c.send(job{"gate", 0})
				synctest.Wait()
				jobs := []job{
					{"b0", 0}, {"b1", 2}, {"b2", -1}, {"low", 6}, {"b3", 2}, {"b4", 5}, {"b5", 0},
					{"high", 4}, {"b6", -100}, {"b7", 5}, {"b8", 1}, {"b0", 2}, {"b4", -5}, {"b9", 0},
				}
				c.send(jobs...)
				synctest.Wait()
				close(gate)
				time.Sleep(2 * time.Second)
				synctest.Wait()

				want := append(append([]string{"gate"}, byPriority(jobs)...), "high", "low")
				r.mu.Lock()
				got := slices.Clone(r.order)
				r.mu.Unlock()
				if !slices.Equal(got, want) {
					t.Errorf("[%s] reconciled in the order\n%s\nwant\n%s", k.name, strings.Join(got, " "), strings.Join(want, " "))
				}
				if err := c.stop(); err != nil {
					t.Errorf("[%s] Start returned %v", k.name, err)
				}
				checkShutDown(t, k.name, c)
			})
		})
	}
}

// outcomes returns the outcomes of visits, in order.
func outcomes(visits []visit) string {
	var out []string
	for _, v := range visits {
		out = append(out, v.outcome)
	}
	return strings.Join(out, " ")
}

// byPriority returns the keys of jobs in the order controller-runtime's priority queue hands
// them out when they are all queued before the first is taken: a key keeps the highest
// priority it was sent with, and goes behind the keys already queued at a priority it was
// raised to.
func byPriority(jobs []job) []string {
	type queued struct {
		priority, order int
	}
	keys := map[string]queued{}
	for i, j := range jobs {
		if q, ok := keys[j.key]; !ok || j.priority > q.priority {
			keys[j.key] = queued{j.priority, i}
		}
	}
	return slices.SortedFunc(maps.Keys(keys), func(a, b string) int {
		if keys[a].priority != keys[b].priority {
			return keys[b].priority - keys[a].priority
		}
		return keys[a].order - keys[b].order
	})
}
