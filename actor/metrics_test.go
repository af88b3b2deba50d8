package actor

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue/metrics"
)

// observer is a metric of every kind that records nothing and panics on the observation that
// fail names (1 for the first), once.
type observer struct{ seen, fail int }

func (o *observer) Inc()        {}
func (o *observer) Dec()        {}
func (o *observer) Set(float64) {}
func (o *observer) Observe(float64) {
	if o.seen++; o.seen == o.fail {
		panic("observation failure")
	}
}

// failingLatency is a metrics provider whose queue latency is an observer.
type failingLatency struct{ latency *observer }

func (p failingLatency) NewDepthMetric(string) metrics.GaugeMetric            { return &observer{} }
func (p failingLatency) NewAddsMetric(string) metrics.CounterMetric           { return &observer{} }
func (p failingLatency) NewLatencyMetric(string) metrics.HistogramMetric      { return p.latency }
func (p failingLatency) NewWorkDurationMetric(string) metrics.HistogramMetric { return &observer{} }
func (p failingLatency) NewUnfinishedWorkSecondsMetric(string) metrics.SettableGaugeMetric {
	return &observer{}
}
func (p failingLatency) NewLongestRunningProcessorSecondsMetric(string) metrics.SettableGaugeMetric {
	return &observer{}
}
func (p failingLatency) NewRetriesMetric(string) metrics.CounterMetric { return &observer{} }

// TestAPanickingStartReachesItsGetter: with metrics that callers wait for, items are not read
// ahead: each getter waits in the owner for an item of its own, so a metric that panics as an
// item starts panics in that getter's Get, and the item waits again, at the back, rather than
// stay in processing with nobody to call Done. The next getter gets it.
func TestAPanickingStartReachesItsGetter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		provider := failingLatency{latency: &observer{fail: 1}}
		q := New(Config[string]{Metrics: metrics.New[string](metrics.Config{Name: "q", Provider: provider})})
		defer q.ShutDown()
		assert.Nil(t, q.ready, "nothing is read ahead")
		q.Add("a")
		q.Add("b")
		assert.PanicsWithValue(t, "observation failure", func() { q.Get() })
		queued, processing, _, _, _, _, _ := q.Snapshot()
		assert.Equal(t, 0, processing, "the Get that panicked took nothing")
		assert.Equal(t, 2, queued)
		var got []string
		for range 2 {
			item, _ := q.Get()
			got = append(got, item)
			q.Done(item)
		}
		assert.Equal(t, []string{"b", "a"}, got, "a went to the back")
	})
}
