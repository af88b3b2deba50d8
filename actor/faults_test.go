package actor

import (
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue/metrics"
)

// quiet is a metric of every kind that records nothing.
type quiet struct{}

func (quiet) Inc()            {}
func (quiet) Dec()            {}
func (quiet) Set(float64)     {}
func (quiet) Observe(float64) {}

// quietProvider is a metrics provider whose metrics are quiet, but for those a test sets.
type quietProvider struct {
	adds             metrics.CounterMetric
	delayed, latency metrics.SettableGaugeMetric
}

func (p quietProvider) NewDepthMetric(string) metrics.GaugeMetric { return quiet{} }
func (p quietProvider) NewAddsMetric(string) metrics.CounterMetric {
	if p.adds != nil {
		return p.adds
	}
	return quiet{}
}
func (p quietProvider) NewLatencyMetric(string) metrics.HistogramMetric      { return quiet{} }
func (p quietProvider) NewWorkDurationMetric(string) metrics.HistogramMetric { return quiet{} }
func (p quietProvider) NewUnfinishedWorkSecondsMetric(string) metrics.SettableGaugeMetric {
	return quiet{}
}
func (p quietProvider) NewLongestRunningProcessorSecondsMetric(string) metrics.SettableGaugeMetric {
	return quiet{}
}
func (p quietProvider) NewRetriesMetric(string) metrics.CounterMetric { return quiet{} }
func (p quietProvider) NewDelayedMetric(string) metrics.SettableGaugeMetric {
	if p.delayed != nil {
		return p.delayed
	}
	return quiet{}
}

// TestACycleDoesNotAllocate: an Add, Get and Done allocate nothing once the queue is warm, with
// metrics or without.
func TestACycleDoesNotAllocate(t *testing.T) {
	for name, config := range map[string]Config[int]{
		"plain":        {},
		"with metrics": {Metrics: metrics.New[int](metrics.Config{Name: "q", Provider: quietProvider{}})},
	} {
		if config.Metrics != nil && raceEnabled {
			continue // its calls wait on reply channels from a sync.Pool, which the race detector thins
		}
		q := New(config)
		cycle := func() {
			q.Add(1)
			item, _ := q.Get()
			q.Done(item)
		}
		for range 100 {
			cycle()
		}
		assert.Zero(t, testing.AllocsPerRun(1000, cycle), name)
		q.ShutDown()
	}
}

// failOnce is a settable gauge that panics on its next Set once armed.
type failOnce struct{ armed *atomic.Bool }

func (f failOnce) Set(float64) {
	if f.armed.CompareAndSwap(true, false) {
		panic("metric failure")
	}
}

// TestADrainIsAnsweredOnce: a ShutDownWithDrain whose delayed gauge panics as the delay heap is
// cleared gets the panic once; it does not also wait among the drains, to be answered again.
func TestADrainIsAnsweredOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var armed atomic.Bool
		q := New(Config[string]{Delaying: true, Metrics: metrics.New[string](metrics.Config{Name: "q", Delayed: true,
			Provider: quietProvider{delayed: failOnce{&armed}}})})
		q.Add("x")
		x, _ := q.Get()
		q.AddAfter("y", time.Hour, nil)
		armed.Store(true)
		reply := make(chan result[string], 2)
		q.send(command[string]{op: opShutDown, reply: reply, more: &details[string]{drain: true}})
		synctest.Wait()
		q.Done(x)
		<-q.exited
		assert.Len(t, reply, 1)
	})
}

// exitingAdds is an adds counter that calls runtime.Goexit, as t.FailNow does.
type exitingAdds struct{}

func (exitingAdds) Inc() { runtime.Goexit() }

// goexitChild makes the test binary, run again by TestAGoexitInTheOwnerNamesItsCause, the
// process whose queue's goroutine calls runtime.Goexit.
const goexitChild = "ACTORQUEUE_GOEXIT_CHILD"

// TestAGoexitInTheOwnerNamesItsCause: code that ends the owner goroutine with runtime.Goexit
// cannot be stopped, and would leave every caller waiting; the process ends instead, with a
// message that says what happened. It runs in a child process, which that ends.
func TestAGoexitInTheOwnerNamesItsCause(t *testing.T) {
	if os.Getenv(goexitChild) != "" {
		q := New(Config[string]{Metrics: metrics.New[string](metrics.Config{Name: "q", Provider: quietProvider{adds: exitingAdds{}}})})
		q.Add("x") // never returns: the process ends
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAGoexitInTheOwnerNamesItsCause$")
	cmd.Env = append(os.Environ(), goexitChild+"=1")
	out, err := cmd.CombinedOutput()
	assert.Error(t, err, "the child process ends in a panic")
	assert.Contains(t, string(out), "called runtime.Goexit")
}
