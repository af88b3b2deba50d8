package prometheus_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/actorqueue/workqueue"
	wqprometheus "github.com/actorqueue/workqueue/prometheus"
)

// workHistogram makes a provider in a registry of its own, with opts, has a named queue handle
// one item, and returns the queue's workqueue_work_duration_seconds histogram as gathered (in
// the protobuf model, which is where native buckets show).
func workHistogram(t *testing.T, opts ...wqprometheus.Option) *dto.Histogram {
	t.Helper()
	reg := prometheus.NewRegistry()
	provider, err := wqprometheus.NewProvider(reg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "q", MetricsProvider: provider})
	q.Add("a")
	item, _ := q.Get()
	q.Done(item)
	q.ShutDown() // the owner has recorded every call once it has exited

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "workqueue_work_duration_seconds" && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetHistogram()
		}
	}
	t.Fatal("no workqueue_work_duration_seconds series")
	return nil
}

// TestNativeHistograms checks that WithNativeHistograms adds native buckets with
// component-base's settings to the classic ones, and that a provider without it has none.
func TestNativeHistograms(t *testing.T) {
	t.Run("with", func(t *testing.T) {
		h := workHistogram(t, wqprometheus.WithNativeHistograms())
		// A bucket factor of 1.1 gives schema 3: buckets grow by 2^(2^-3) ≈ 1.09 each.
		if h.Schema == nil || h.GetSchema() != 3 {
			t.Errorf("schema %v, want 3 (a bucket factor of 1.1)", h.Schema)
		}
		if h.GetZeroThreshold() != prometheus.DefNativeHistogramZeroThreshold {
			t.Errorf("zero threshold %v, want client_golang's default %v", h.GetZeroThreshold(), prometheus.DefNativeHistogramZeroThreshold)
		}
		if len(h.GetPositiveSpan()) != 1 || h.GetSampleCount() != 1 {
			t.Errorf("%d positive spans and %d samples, want the one observation in one span", len(h.GetPositiveSpan()), h.GetSampleCount())
		}
		if len(h.GetBucket()) != 10 {
			t.Errorf("%d classic buckets, want client-go's 10 as well", len(h.GetBucket()))
		}
	})
	t.Run("without", func(t *testing.T) {
		h := workHistogram(t)
		if h.Schema != nil || len(h.GetPositiveSpan()) != 0 {
			t.Errorf("schema %v and %d positive spans, want a classic histogram only", h.Schema, len(h.GetPositiveSpan()))
		}
		if len(h.GetBucket()) != 10 {
			t.Errorf("%d classic buckets, want client-go's 10", len(h.GetBucket()))
		}
	})
}
