package controllerruntime

import (
	clientgo "k8s.io/client-go/util/workqueue"

	"github.com/actorqueue/workqueue"
)

// FromClientGo returns p, a metrics provider written for client-go's workqueue (the type of
// controller-runtime's priorityqueue.Opts.MetricProvider), as a provider of package workqueue,
// for [New]'s config. The metrics p makes are used as they are: their methods are the same.
// The queue's depth then has no priority label, since p cannot record one (controller-runtime
// records the depth by priority only for its own provider). It panics if p is nil.
func FromClientGo(p clientgo.MetricsProvider) workqueue.MetricsProvider {
	if p == nil {
		panic("workqueue: controllerruntime.FromClientGo: nil provider")
	}
	return clientGo{p}
}

// clientGo is the provider FromClientGo returns.
type clientGo struct{ p clientgo.MetricsProvider }

func (c clientGo) NewDepthMetric(name string) workqueue.GaugeMetric {
	return c.p.NewDepthMetric(name)
}

func (c clientGo) NewAddsMetric(name string) workqueue.CounterMetric {
	return c.p.NewAddsMetric(name)
}

func (c clientGo) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return c.p.NewLatencyMetric(name)
}

func (c clientGo) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return c.p.NewWorkDurationMetric(name)
}

func (c clientGo) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return c.p.NewUnfinishedWorkSecondsMetric(name)
}

func (c clientGo) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return c.p.NewLongestRunningProcessorSecondsMetric(name)
}

func (c clientGo) NewRetriesMetric(name string) workqueue.CounterMetric {
	return c.p.NewRetriesMetric(name)
}
