package prometheus_test

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/actorqueue/workqueue"
	wqprometheus "github.com/actorqueue/workqueue/prometheus"
)

// newProvider returns a provider registered in reg, failing the test if it cannot be.
func newProvider(t *testing.T, reg prometheus.Registerer, opts ...wqprometheus.Option) *wqprometheus.Provider {
	t.Helper()
	p, err := wqprometheus.NewProvider(reg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// get takes the next item and checks it is the expected one.
func get(t *testing.T, q workqueue.TypedInterface[string], want string) {
	t.Helper()
	if item, shutdown := q.Get(); item != want || shutdown {
		t.Fatalf("Get() = %q, %v; want %q, false", item, shutdown, want)
	}
}

// families are the metric families of one scrape or gathering, by name.
type families map[string]*dto.MetricFamily

// scrape serves reg with promhttp on a loopback port, reads /metrics once over HTTP, shuts the
// server down and returns what it read, parsed from the text format.
func scrape(t *testing.T, reg prometheus.Gatherer) families {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	server := &http.Server{Handler: mux}
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	defer func() {
		if err := server.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()

	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: time.Minute} // a watchdog, not a wait
	resp, err := client.Get("http://" + listener.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	if format := expfmt.ResponseFormat(resp.Header); format.FormatType() != expfmt.TypeTextPlain {
		t.Fatalf("GET /metrics answered %q, not the text format", format)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

// gather reads reg directly, for the tests that are not about HTTP.
func gather(t *testing.T, reg prometheus.Gatherer) families {
	t.Helper()
	list, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	f := make(families, len(list))
	for _, family := range list {
		f[family.GetName()] = family
	}
	return f
}

// metric returns the series of family name whose labels include the given name-value pairs, or
// nil if there is none.
func (f families) metric(name string, labels ...string) *dto.Metric {
	for _, m := range f[name].GetMetric() {
		if hasLabels(m, labels) {
			return m
		}
	}
	return nil
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	have := make(map[string]string)
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, ok := have[pairs[i]]; !ok || v != pairs[i+1] {
			return false
		}
	}
	return true
}

// gauge returns the value of a gauge series, failing the test if it is missing.
func (f families) gauge(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	m := f.metric(name, labels...)
	if m.GetGauge() == nil {
		t.Fatalf("no gauge %s%v", name, labels)
	}
	return m.GetGauge().GetValue()
}

// counter returns the value of a counter series, failing the test if it is missing.
func (f families) counter(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	m := f.metric(name, labels...)
	if m.GetCounter() == nil {
		t.Fatalf("no counter %s%v", name, labels)
	}
	return m.GetCounter().GetValue()
}

// histogram returns a histogram series, failing the test if it is missing.
func (f families) histogram(t *testing.T, name string, labels ...string) *dto.Histogram {
	t.Helper()
	m := f.metric(name, labels...)
	if m.GetHistogram() == nil {
		t.Fatalf("no histogram %s%v", name, labels)
	}
	return m.GetHistogram()
}

// cumulative returns how many observations of h are at most le, failing the test if h has no
// bucket bounded by le.
func cumulative(t *testing.T, h *dto.Histogram, le float64) uint64 {
	t.Helper()
	for _, b := range h.GetBucket() {
		if approx(b.GetUpperBound(), le) {
			return b.GetCumulativeCount()
		}
	}
	t.Fatalf("no bucket le=%g", le)
	return 0
}

// approx reports whether a and b are equal but for float rounding.
func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
