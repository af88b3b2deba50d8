// Package stress is the home of the suites that prove actorqueue equivalent to client-go's
// workqueue under concurrency, and of the side-by-side benchmarks. It is a module of its own
// (with a replace directive to the library) so that the library does not depend on
// Kubernetes; the go.work at the repository root lets `go test ./... ./stress/...` run both.
package stress
