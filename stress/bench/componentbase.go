package bench

import (
	"fmt"
	"sync"

	clientgo "k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/workqueue" // client-go's Prometheus provider, installed as it is linked in
)

// componentBase returns the provider that gives client-go's named queues their Prometheus
// metrics as a Kubernetes controller's are: nil, which client-go replaces with its global
// provider. k8s.io/component-base/metrics/prometheus/workqueue installs that provider when it
// is linked in, and registers its metrics in component-base's legacyregistry on first use.
// client-go keeps the first provider set in the process, and controller-runtime sets one too
// (its own, in its registry) as it is linked in: which comes first depends on the order in
// which the packages' init functions run. So the first call checks that a queue given no
// provider records in legacyregistry, and panics if not.
func componentBase() clientgo.MetricsProvider {
	if err := componentBaseInstalled(); err != nil {
		panic("bench: " + err.Error())
	}
	return nil
}

// componentBaseInstalled checks, once, that component-base's provider is client-go's global
// one: a queue named with no provider counts its add in legacyregistry.
var componentBaseInstalled = sync.OnceValue(func() error {
	name := queueName("component-base-probe")
	q := clientgo.NewTypedRateLimitingQueueWithConfig(clientgo.DefaultTypedControllerRateLimiter[string](),
		clientgo.TypedRateLimitingQueueConfig[string]{Name: name})
	q.Add("probe")
	q.ShutDown()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return err
	}
	for _, f := range families {
		if f.GetName() != "workqueue_adds_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == name && m.GetCounter().GetValue() == 1 {
					return nil
				}
			}
		}
	}
	return fmt.Errorf("client-go's global metrics provider is not component-base's: a queue named %q recorded nothing in legacyregistry", name)
})
