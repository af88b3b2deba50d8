// Package extensions puts the methods actorqueue has beyond client-go's interfaces under
// concurrent load, with the race detector, and checks the promises their documentation makes:
// GetWithContext while workers come and go, ShutDownWithDrainContext while workers hold items,
// AddBatch's atomicity and order, and the bounded, jittered rate limiters under a churn of
// failing keys. Everything that waits runs in a testing/synctest bubble; see stress/README.md
// for what each test checks, what it catches, and the environment variables that size it.
package extensions
