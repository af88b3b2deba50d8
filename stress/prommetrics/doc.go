// Package prommetrics compares the Prometheus metrics of actorqueue's queues, recorded by the
// module github.com/actorqueue/workqueue/prometheus, with those of client-go's queues as
// k8s.io/component-base/metrics/prometheus/workqueue records them: the same families, help
// texts, labels, buckets and values, scraped after the same calls. It has tests only.
package prommetrics
