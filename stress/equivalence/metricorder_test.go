package equivalence

import (
	"fmt"
	"slices"
	"testing"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// TestRetriesMetricIsCreatedLast: a delaying or rate-limiting queue asks its metrics provider
// for the retries counter after the six metrics of the queue it adds to, as client-go does, so
// a provider that depends on the order sees the same sequence. The order of the six among
// themselves is left out: only where the retries counter comes is compared.
func TestRetriesMetricIsCreatedLast(t *testing.T) {
	const name = "q"
	kinds := map[string][2]func(p *metricCalls){
		"delaying": {
			func(p *metricCalls) {
				clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{
					Name: name, MetricsProvider: clientGoMetrics{p}}).ShutDown()
			},
			func(p *metricCalls) {
				actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{
					Name: name, MetricsProvider: actorQueueMetrics{p}}).ShutDown()
			},
		},
		"rate-limiting": {
			func(p *metricCalls) {
				clientgo.NewTypedRateLimitingQueueWithConfig(clientgo.DefaultTypedControllerRateLimiter[string](),
					clientgo.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: clientGoMetrics{p}}).ShutDown()
			},
			func(p *metricCalls) {
				actorqueue.NewTypedRateLimitingQueueWithConfig(actorqueue.DefaultTypedControllerRateLimiter[string](),
					actorqueue.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: actorQueueMetrics{p}}).ShutDown()
			},
		},
		"delaying around a named queue": {
			func(p *metricCalls) {
				inner := clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{Name: name, MetricsProvider: clientGoMetrics{p}})
				clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{
					Name: name, MetricsProvider: clientGoMetrics{p}, Queue: inner}).ShutDown()
			},
			func(p *metricCalls) {
				inner := actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{Name: name, MetricsProvider: actorQueueMetrics{p}})
				actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{
					Name: name, MetricsProvider: actorQueueMetrics{p}, Queue: inner}).ShutDown()
			},
		},
		"delaying around a foreign named queue": {
			func(p *metricCalls) {
				inner := clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{Name: name, MetricsProvider: clientGoMetrics{p}})
				clientgo.NewTypedDelayingQueueWithConfig(clientgo.TypedDelayingQueueConfig[string]{
					Name: name, MetricsProvider: clientGoMetrics{p}, Queue: inner}).ShutDown()
			},
			func(p *metricCalls) {
				inner := clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{Name: name, MetricsProvider: clientGoMetrics{p}})
				actorqueue.NewTypedDelayingQueueWithConfig(actorqueue.TypedDelayingQueueConfig[string]{
					Name: name, MetricsProvider: actorQueueMetrics{p}, Queue: inner}).ShutDown()
			},
		},
	}
	for kind, pair := range kinds {
		t.Run(kind, func(t *testing.T) {
			var orders [2]string
			for i, build := range pair {
				p := newMetricCalls()
				build(p)
				orders[i] = aroundRetries(p.created)
			}
			if orders[0] != orders[1] {
				t.Errorf("metrics created:\nactorqueue: %s\nclient-go:  %s", orders[1], orders[0])
			}
		})
	}
}

// aroundRetries describes the order of created: the metrics created before the retries
// counter, then those after, each group sorted by name.
func aroundRetries(created []string) string {
	i := slices.Index(created, "retries")
	if i < 0 {
		return fmt.Sprintf("%v, no retries", slices.Sorted(slices.Values(created)))
	}
	return fmt.Sprintf("%v, then retries, then %v",
		slices.Sorted(slices.Values(created[:i])), slices.Sorted(slices.Values(created[i+1:])))
}
