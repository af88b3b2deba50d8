package prometheus

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/actorqueue/workqueue/metrics"
)

const (
	// maxPriorities is how many priorities of a queue get a series of their own, as in
	// controller-runtime: plenty for its two priorities and a few more.
	maxPriorities = 25
	// overflowPriority labels the series of every priority beyond the first maxPriorities, under
	// controller-runtime's name for it.
	overflowPriority = "exceeded_cardinality_limit"
)

// NewDepthMetricWithPriority returns the depth of the priority queue named name, by priority:
// Inc(p) and Dec(p) move the workqueue_depth_by_priority series with priority="p" and the
// queue's workqueue_depth, which stays its total depth. A queue records its depth either there or
// in NewDepthMetric's gauge, never both (see metrics.PriorityProvider).
//
// The first 25 priorities seen under name get series of their own; every later one shares the
// series labelled priority="exceeded_cardinality_limit". A priority keeps its series once it
// has one, so every series stays the number of its items. The result is safe for simultaneous
// use.
func (p *Provider) NewDepthMetricWithPriority(name string) metrics.DepthMetricWithPriority {
	p.mu.Lock()
	defer p.mu.Unlock()
	labels, ok := p.priorities[name]
	if !ok {
		labels = &priorityLabels{vec: p.byPriority, name: name, own: make(map[int]prometheus.Gauge)}
		p.priorities[name] = labels
	}
	return &priorityDepth{total: p.depth.WithLabelValues(name), labels: labels}
}

// priorityDepth is the depth of one priority queue, by priority and in total.
type priorityDepth struct {
	total  prometheus.Gauge
	labels *priorityLabels
}

func (d *priorityDepth) Inc(priority int) {
	d.labels.gauge(priority).Inc()
	d.total.Inc()
}

func (d *priorityDepth) Dec(priority int) {
	d.labels.gauge(priority).Dec()
	d.total.Dec()
}

// priorityLabels gives the priorities of one queue name their series, shared by every queue of
// that name.
type priorityLabels struct {
	vec  *prometheus.GaugeVec
	name string

	mu  sync.Mutex
	own map[int]prometheus.Gauge // the priorities with a series of their own, at most maxPriorities
}

// gauge returns the series of priority. Once maxPriorities priorities have their own, a priority
// not among them never gets one, so it always lands on the overflow series.
func (l *priorityLabels) gauge(priority int) prometheus.Gauge {
	l.mu.Lock()
	defer l.mu.Unlock()
	if g, ok := l.own[priority]; ok {
		return g
	}
	if len(l.own) == maxPriorities {
		return l.vec.WithLabelValues(l.name, overflowPriority)
	}
	g := l.vec.WithLabelValues(l.name, strconv.Itoa(priority))
	l.own[priority] = g
	return g
}
