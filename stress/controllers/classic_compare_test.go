package controllers

import (
	"fmt"
	"maps"
	"testing"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// TestClassicController runs the classic scenario with actorqueue's rate-limiting queue and
// with client-go's: each run must bring every ConfigMap to its final state and forget every
// retried key (runClassic checks), and both must end with the same ConfigMaps, the expected
// ones, after the same number of injected failures.
func TestClassicController(t *testing.T) {
	ours := runClassic(t, func() clientgo.TypedRateLimitingInterface[string] {
		return actorqueue.NewTypedRateLimitingQueue(actorqueue.DefaultTypedControllerRateLimiter[string]())
	})
	theirs := runClassic(t, func() clientgo.TypedRateLimitingInterface[string] {
		return clientgo.NewTypedRateLimitingQueue(clientgo.DefaultTypedControllerRateLimiter[string]())
	})
	want, injected := expected()
	if !maps.EqualFunc(ours.final, want, maps.Equal) {
		t.Errorf("[controller] with actorqueue, the ConfigMaps end as\n%v\nwant\n%v", ours.final, want)
	}
	if !maps.EqualFunc(theirs.final, ours.final, maps.Equal) {
		t.Errorf("[controller] the ConfigMaps end differently: with client-go's queue\n%v\nwith actorqueue\n%v",
			theirs.final, ours.final)
	}
	if ours.injected != injected || theirs.injected != injected {
		t.Errorf("[controller] failures injected: %d with actorqueue, %d with client-go's queue, want %d",
			ours.injected, theirs.injected, injected)
	}
}

// expected returns the ConfigMaps the scenario must end with, and how many failures it
// injects on the way: every spec a ConfigMap is given fails failures(key, spec) times.
func expected() (final map[string]map[string]string, injected int) {
	final = map[string]map[string]string{}
	for i := range objects {
		name := fmt.Sprintf("cm-%02d", i)
		key := namespace + "/" + name
		injected += failures(key, "1")
		switch i % 4 {
		case 0:
		case 1, 2:
			injected += failures(key, "2")
			final[name] = map[string]string{"spec": "2", "status": "2"}
		default:
			final[name] = map[string]string{"spec": "1", "status": "1"}
		}
	}
	return final, injected
}
