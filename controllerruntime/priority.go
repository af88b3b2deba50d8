package controllerruntime

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

const (
	// maxPriorities is how many priorities of a queue get a depth series of their own,
	// controller-runtime's limit.
	maxPriorities = 25
	// overflowPriority labels the depth of the priorities beyond maxPriorities, as in
	// controller-runtime.
	overflowPriority = "exceeded_cardinality_limit"
)

// priorityLabels is the depth by priority of one queue. It is safe for simultaneous use.
type priorityLabels struct {
	depth *prometheus.GaugeVec
	name  string

	mu  sync.Mutex
	own map[int]prometheus.Gauge // the priorities with a series of their own, at most maxPriorities
}

func newPriorityLabels(depth *prometheus.GaugeVec, name string) *priorityLabels {
	return &priorityLabels{depth: depth, name: name, own: make(map[int]prometheus.Gauge)}
}

// Inc adds one item of priority.
func (l *priorityLabels) Inc(priority int) { l.gauge(priority).Inc() }

// Dec removes one item of priority.
func (l *priorityLabels) Dec(priority int) { l.gauge(priority).Dec() }

// gauge returns the series of priority. A priority keeps its series once it has one, so that
// Inc and Dec of an item always move the same series.
func (l *priorityLabels) gauge(priority int) prometheus.Gauge {
	l.mu.Lock()
	defer l.mu.Unlock()
	if g, ok := l.own[priority]; ok {
		return g
	}
	if len(l.own) == maxPriorities {
		return l.depth.WithLabelValues(l.name, l.name, overflowPriority)
	}
	g := l.depth.WithLabelValues(l.name, l.name, strconv.Itoa(priority))
	l.own[priority] = g
	return g
}
