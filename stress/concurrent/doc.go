// Package concurrent is the concurrent stress suite: many producers and workers on one queue
// of actorqueue, thousands of keys with heavy duplication, delays, retries and shutdowns at
// random moments, under the race detector, with invariants checked on a log of every call. It
// runs for ACTORQUEUE_STRESS_DURATION of wall-clock time (a few seconds by default); see
// stress/README.md.
package concurrent
