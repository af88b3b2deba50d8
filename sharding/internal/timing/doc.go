// Package timing is the sharding module's timing rules, in one place and without I/O: what a
// replica may do with a bucket, and until when, given what it has observed (its writes of the
// bucket's Lease and their answers, the Leases it listed) and the instants it observed them
// at. Nothing here reads a clock, starts a goroutine, sends on a channel or takes a lock: the
// shell (package sharding: the electors, the Lease requests, the queues) passes every instant
// in and acts on what comes back, as golang.org/x/time/rate's methods that take a time do.
// The values are not safe for simultaneous use; each has one owner in the shell.
//
// # Words
//
//   - A campaign is one client-go elector's run for one bucket: it acquires the Lease, renews
//     it, and ends when the elector stops.
//   - The hold window is how long this replica may act on the bucket: it ends
//     LeaseDuration/(1+MaxClockDrift) after the first of its writes that produced the record
//     the other electors see now began (see [Hold]).
//   - A tenure is an unbroken hold: from the write that began it, through renewals that each
//     succeed while its hold window is still open, over a Lease that still holds this
//     replica's own record. Items handed out belong to the tenure they were handed out in.
//   - The keys' end is the drain budget before the end of the hold window: the keys' contexts
//     end then, and a tenure whose keys' end has passed has lapsed (its keys are set aside,
//     not handed out, until a renewal moves it).
//
// # The rules, and where each lives
//
//   - The durations and their constraints: [Durations] (HoldWindow, DrainBudget, Grace, Check).
//   - The hold window, renewTime never going back, and the tenure rule: [Hold].
//   - Whether an item may still be acted on, the keys' end, lapse: [Tenure].
//   - Whether to acquire a bucket beyond the fair share: [Restraint].
//   - Who is live, the fair share, whom to ask for a bucket: [Census].
//
// Step tables at fixed instants test each rule, and TestDeliberateBugs (SHARDING_MUTATION=1)
// builds a deliberate bug into each, with go test's -overlay, and requires its table to fail.
package timing
