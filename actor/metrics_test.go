package actor

import (
	"testing"

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

// TestAPanickingTakeIsOwedToItsGetter: two getters took items, and another caller's command is
// the first to carry their takes to the owner. The metrics panic as the first take starts: the
// second take still starts and the command is still applied, without the panic; that waits for
// the getter of the first item, and reaches it when it confirms its take.
func TestAPanickingTakeIsOwedToItsGetter(t *testing.T) {
	provider := failingLatency{latency: &observer{fail: 1}}
	q := newQueue(Config[string]{Metrics: metrics.Config{Name: "q", Provider: provider}})
	var a alarm
	q.mailbox.put(command[string]{op: opAdd, item: "a"})
	q.mailbox.put(command[string]{op: opAdd, item: "b"})
	q.turn(&a, &alarm{}) // a and b are reserved and wait in ready
	<-q.ready
	raise(&q.taken, (<-q.ready).seq) // two getters took them; their news has not come
	send := func(c command[string]) any {
		c.reply = make(chan result[string], 1)
		q.mailbox.put(c)
		q.turn(&a, &alarm{})
		return (<-c.reply).fault
	}
	assert.Nil(t, send(command[string]{op: opAdd, item: "c"}), "the Add's caller owes nothing")
	state := q.m.(*fifo[string]).state
	assert.Equal(t, 2, state.Processing(), "both takes started")
	select {
	case h := <-q.ready:
		assert.Equal(t, "c", h.item)
	default:
		t.Error("c was not added")
	}
	assert.Nil(t, send(command[string]{op: opTaken, item: "b"}), "b's getter owes nothing")
	assert.Equal(t, "observation failure", send(command[string]{op: opTaken, item: "a"}))
	assert.Nil(t, send(command[string]{op: opTaken, item: "a"}), "claimed once")
}
