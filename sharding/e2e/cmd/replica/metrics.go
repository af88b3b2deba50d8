package main

import (
	"sync/atomic"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// recordMetrics writes the sharder's measurements to the record.
type recordMetrics struct {
	rec     *record.Writer
	sharder atomic.Pointer[sharding.Sharder]
}

// BucketsHeld records the buckets held. The sharder calls it under its lock after each change,
// so the events come in the order of the changes.
func (m *recordMetrics) BucketsHeld(int) {
	if s := m.sharder.Load(); s != nil {
		m.rec.Write(record.Event{Kind: record.Held, Buckets: s.Held()})
	}
}

func (m *recordMetrics) KeyDropped() {}

func (m *recordMetrics) HandedOver(h sharding.Handover) {
	m.rec.Write(record.Event{Kind: record.HandedOver, Bucket: h.Bucket, Cause: h.Cause.String(), Drain: h.Drain, Overran: h.Overran})
}

var _ sharding.Metrics = (*recordMetrics)(nil)

// newSharder returns the replica's sharder on leases, recording its measurements in rec.
func newSharder(o options, leases coordinationv1client.LeasesGetter, rec *record.Writer) *sharding.Sharder {
	metrics := &recordMetrics{rec: rec}
	cfg := o.config()
	cfg.Client = leases
	cfg.Metrics = metrics
	s := sharding.New(cfg)
	metrics.sharder.Store(s)
	return s
}
