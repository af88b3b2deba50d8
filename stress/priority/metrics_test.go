package priority

import (
	"fmt"
	"slices"
	"sync"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// tally records the metrics of one queue, for comparison: the depth, the adds and retries
// counted, and the observed queue and work durations. The unfinished-work gauges are left out:
// actorqueue's move only while items are in processing, controller-runtime's every 500 ms
// forever, a documented difference. It is safe for simultaneous use.
type tally struct {
	mu                   sync.Mutex
	depth, adds, retries int
	latency, work        []float64 // in seconds
}

// String writes the tally, the durations sorted.
func (t *tally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return fmt.Sprintf("depth %d, adds %d, retries %d, queued %v, worked %v",
		t.depth, t.adds, t.retries, slices.Sorted(slices.Values(t.latency)), slices.Sorted(slices.Values(t.work)))
}

// count is a gauge or counter of a tally.
type count struct {
	mu *sync.Mutex
	n  *int
}

func (c count) Inc() { c.mu.Lock(); *c.n++; c.mu.Unlock() }
func (c count) Dec() { c.mu.Lock(); *c.n--; c.mu.Unlock() }

// durations is a histogram of a tally.
type durations struct {
	mu  *sync.Mutex
	obs *[]float64
}

func (d durations) Observe(v float64) { d.mu.Lock(); *d.obs = append(*d.obs, v); d.mu.Unlock() }

// ignored is a gauge the tally does not compare.
type ignored struct{}

func (ignored) Set(float64) {}

// clientGoProvider records a controller-runtime queue's metrics in a tally: the metric types are
// client-go's.
type clientGoProvider struct{ t *tally }

func (p clientGoProvider) NewDepthMetric(string) clientgo.GaugeMetric {
	return count{&p.t.mu, &p.t.depth}
}
func (p clientGoProvider) NewAddsMetric(string) clientgo.CounterMetric {
	return count{&p.t.mu, &p.t.adds}
}
func (p clientGoProvider) NewLatencyMetric(string) clientgo.HistogramMetric {
	return durations{&p.t.mu, &p.t.latency}
}
func (p clientGoProvider) NewWorkDurationMetric(string) clientgo.HistogramMetric {
	return durations{&p.t.mu, &p.t.work}
}
func (p clientGoProvider) NewUnfinishedWorkSecondsMetric(string) clientgo.SettableGaugeMetric {
	return ignored{}
}
func (p clientGoProvider) NewLongestRunningProcessorSecondsMetric(string) clientgo.SettableGaugeMetric {
	return ignored{}
}
func (p clientGoProvider) NewRetriesMetric(string) clientgo.CounterMetric {
	return count{&p.t.mu, &p.t.retries}
}

// actorQueueProvider records an actorqueue queue's metrics in a tally.
type actorQueueProvider struct{ t *tally }

func (p actorQueueProvider) NewDepthMetric(string) actorqueue.GaugeMetric {
	return count{&p.t.mu, &p.t.depth}
}
func (p actorQueueProvider) NewAddsMetric(string) actorqueue.CounterMetric {
	return count{&p.t.mu, &p.t.adds}
}
func (p actorQueueProvider) NewLatencyMetric(string) actorqueue.HistogramMetric {
	return durations{&p.t.mu, &p.t.latency}
}
func (p actorQueueProvider) NewWorkDurationMetric(string) actorqueue.HistogramMetric {
	return durations{&p.t.mu, &p.t.work}
}
func (p actorQueueProvider) NewUnfinishedWorkSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return ignored{}
}
func (p actorQueueProvider) NewLongestRunningProcessorSecondsMetric(string) actorqueue.SettableGaugeMetric {
	return ignored{}
}
func (p actorQueueProvider) NewRetriesMetric(string) actorqueue.CounterMetric {
	return count{&p.t.mu, &p.t.retries}
}
