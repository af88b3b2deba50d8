package actor

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue/metrics"
)

// exiter is a metric of every kind that calls runtime.Goexit on the Inc that exit names (1 for
// the first), once.
type exiter struct{ seen, exit int }

func (e *exiter) Inc() {
	if e.seen++; e.seen == e.exit {
		runtime.Goexit()
	}
}
func (e *exiter) Dec()            {}
func (e *exiter) Set(float64)     {}
func (e *exiter) Observe(float64) {}

// exitingAdds is a metrics provider whose adds counter is an exiter.
type exitingAdds struct{ adds *exiter }

func (p exitingAdds) NewDepthMetric(string) metrics.GaugeMetric            { return &exiter{} }
func (p exitingAdds) NewAddsMetric(string) metrics.CounterMetric           { return p.adds }
func (p exitingAdds) NewLatencyMetric(string) metrics.HistogramMetric      { return &exiter{} }
func (p exitingAdds) NewWorkDurationMetric(string) metrics.HistogramMetric { return &exiter{} }
func (p exitingAdds) NewUnfinishedWorkSecondsMetric(string) metrics.SettableGaugeMetric {
	return &exiter{}
}
func (p exitingAdds) NewLongestRunningProcessorSecondsMetric(string) metrics.SettableGaugeMetric {
	return &exiter{}
}
func (p exitingAdds) NewRetriesMetric(string) metrics.CounterMetric { return &exiter{} }

// TestAGoexitMidChainKeepsTheRestOfTheChain: the metric of the second of four commands taken in
// one chain ends the owner's goroutine. That command's caller hears of the Goexit; the two after
// it go back to the front of the mailbox, ahead of a command put meanwhile, and the next turn
// applies them in order.
func TestAGoexitMidChainKeepsTheRestOfTheChain(t *testing.T) {
	q := newQueue(Config[string]{Metrics: metrics.Config{Name: "q", Provider: exitingAdds{adds: &exiter{exit: 2}}}})
	var replies []chan result[string]
	put := func(item string) {
		reply := make(chan result[string], 1)
		replies = append(replies, reply)
		q.mailbox.put(command[string]{op: opAdd, item: item, reply: reply})
	}
	for _, item := range []string{"a", "b", "c", "d"} {
		put(item)
	}
	var a alarm
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		q.turn(&a, &alarm{})
		t.Error("the turn went on after Goexit")
	}()
	<-ended
	assert.Nil(t, (<-replies[0]).fault)
	assert.Equal(t, goexit{}, (<-replies[1]).fault)
	put("e")
	q.turn(&a, &alarm{})
	for i, item := range []string{"c", "d", "e"} {
		select {
		case r := <-replies[2+i]:
			assert.Nil(t, r.fault, item)
		default:
			t.Errorf("%s was not applied", item)
		}
	}
	var order []string
	for len(q.ready) > 0 {
		order = append(order, (<-q.ready).item)
	}
	assert.Equal(t, []string{"a", "c", "d", "e"}, order, "b is not added, as in client-go")
}
