package bench

import (
	"testing"
	"testing/synctest"
)

func TestStringKeysReachTheQueueAsObjectKeys(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inner := impl.NewNamed(DefaultRetry)
				q := stringKeyed{inner}
				q.Add(53)
				if item, _ := inner.Get(); item != "namespace-3/object-53" {
					t.Errorf("the queue holds %q for key 53, want namespace-3/object-53", item)
				}
				inner.Done("namespace-3/object-53")
				q.Add(1234)
				if k, shutdown := q.Get(); k != 1234 || shutdown {
					t.Errorf("Get = %d, %v; want 1234, false", k, shutdown)
				}
				q.Done(1234)
				q.ShutDown()
				if _, shutdown := q.Get(); !shutdown {
					t.Error("Get after ShutDown does not report shutdown")
				}
			})
		})
	}
}

func TestCycleWithStringKeysProcessesEveryKeyOnce(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec, queues := recording(WithStringKeys(impl))
				Cycle(rec, CycleSpec{Items: 300, Producers: 3, Workers: 2})
				for _, op := range []string{"Add", "Get", "Done"} {
					onlyOnce(t, queues()[0], op, 300)
				}
			})
		})
	}
}
