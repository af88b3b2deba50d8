package prometheus_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/actorqueue/workqueue"
	wqprometheus "github.com/actorqueue/workqueue/prometheus"
)

// A queue recording its metrics in a registry that a server exposes on /metrics, scraped once.
func ExampleNewProvider() {
	registry := prometheus.NewRegistry()
	// A queue records these metrics in its own goroutine, a moment after each call. This example
	// scrapes right after its calls, so it asks for them before each call returns; a server
	// scraped every few seconds leaves that option out and spares every call a round trip.
	provider, err := wqprometheus.NewProvider(registry, // or prometheus.DefaultRegisterer
		wqprometheus.WithSynchronousMetrics())
	if err != nil {
		log.Fatal(err)
	}
	// Either per queue, as here, or for every queue: workqueue.SetProvider(provider).
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "example", MetricsProvider: provider})
	defer queue.ShutDown()

	queue.Add("default/web")
	queue.Add("default/db")
	key, _ := queue.Get()
	queue.AddAfter(key, time.Hour) // retry much later
	queue.Done(key)

	// Serve the registry on /metrics, on a loopback port.
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	server := &http.Server{Handler: mux}
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	defer func() {
		server.Shutdown(context.Background())
		<-served
	}()

	// Scrape it as Prometheus would, and show the series that count items.
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Get("http://" + listener.Addr().String() + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		for _, counted := range []string{"workqueue_adds_total", "workqueue_depth", "workqueue_delayed_depth", "workqueue_retries_total"} {
			if strings.HasPrefix(lines.Text(), counted+"{") {
				fmt.Println(lines.Text())
			}
		}
	}
	// Output:
	// workqueue_adds_total{name="example"} 2
	// workqueue_delayed_depth{name="example"} 1
	// workqueue_depth{name="example"} 1
	// workqueue_retries_total{name="example"} 1
}
