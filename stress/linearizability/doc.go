// Package linearizability records concurrent histories of actorqueue's rate-limiting queue
// (call and return of every operation, with arguments and results) and checks each with
// porcupine against a plain sequential model of the queue. See stress/README.md.
package linearizability
