package controllerruntime_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

const namespace = "test"

func key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: name}
}

var errInjected = errors.New("injected failure")

// script says how the reconciles of a key go: failures errors first, then, if requeueAfter is
// set, one Result{RequeueAfter: requeueAfter, Priority: priority}, then success. Each
// reconcile lasts work on the bubble's clock; a key with a gate waits for it to close.
type script struct {
	failures     int
	requeueAfter time.Duration
	priority     *int
	work         time.Duration
	gate         chan struct{}
}

// outcome returns the result of a key's reconcile number n (from 0).
func (s script) outcome(n int) (outcome string, result reconcile.Result, err error) {
	switch {
	case n < s.failures:
		return "error", reconcile.Result{}, errInjected
	case n == s.failures && s.requeueAfter > 0:
		return "requeue", reconcile.Result{RequeueAfter: s.requeueAfter, Priority: s.priority}, nil
	}
	return "success", reconcile.Result{}, nil
}

// outcomes returns the outcomes of the reconciles the script asks for, in order: errors, maybe
// a requeue, then success.
func (s script) outcomes() []string {
	var out []string
	for n := 0; len(out) == 0 || out[len(out)-1] != "success"; n++ {
		outcome, _, _ := s.outcome(n)
		out = append(out, outcome)
	}
	return out
}

// visit is one reconcile of a key, with when it began and ended since the start.
type visit struct {
	began, ended time.Duration
	outcome      string
}

func (v visit) String() string { return fmt.Sprintf("%s@%v", v.outcome, v.began) }

// scripted is a reconciler that follows a script per key and records every reconcile. It must
// be created and used inside a synctest bubble, whose clock it reads.
type scripted struct {
	start   time.Time
	scripts map[string]script

	mu       sync.Mutex
	visits   map[string][]visit
	order    []string        // keys in the order their reconciles began
	inflight map[string]bool // keys being reconciled
	overlaps []string        // reconciles that began while the same key was being reconciled
}

func newScripted(scripts map[string]script) *scripted {
	return &scripted{start: time.Now(), scripts: scripts, visits: map[string][]visit{}, inflight: map[string]bool{}}
}

func (s *scripted) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	name := req.Name
	began := time.Since(s.start)
	s.mu.Lock()
	if s.inflight[name] {
		s.overlaps = append(s.overlaps, fmt.Sprintf("%s at %v", name, began))
	}
	s.inflight[name] = true
	s.order = append(s.order, name)
	n := len(s.visits[name])
	sc := s.scripts[name]
	s.mu.Unlock()

	if sc.gate != nil {
		<-sc.gate
	}
	time.Sleep(sc.work)
	outcome, result, err := sc.outcome(n)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.visits[name] = append(s.visits[name], visit{began: began, ended: time.Since(s.start), outcome: outcome})
	s.inflight[name] = false // before the controller calls Done
	return result, err
}

// state returns whether a reconcile of the key name is under way, and whether one has
// succeeded.
func (s *scripted) state(name string) (busy, succeeded bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.visits[name] {
		succeeded = succeeded || v.outcome == "success"
	}
	return s.inflight[name], succeeded
}
