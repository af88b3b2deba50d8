// Package actor runs each queue as one owner goroutine around a pure core: the state machine
// of package queue (client-go's rules) or queue/priority (controller-runtime's). Only the owner
// touches the core, the queue's adopted rate limiter and its metrics; callers reach it through
// a mailbox, and nothing locks the state. This is the only package that starts a queue's
// goroutine (see Queue.start).
//
// In a turn, the owner collects every pending command, applies each to the core with the
// instants it reads, records the metric events the core returns and answers the callers that
// wait. Then it does what time has brought, hands items out, arms its timer and collects
// again; with nothing to apply, it sleeps until a command, a getter's nudge or the timer.
//
// The owner runs code of others: a custom storage, a group function, metrics, and calls to an
// adopted limiter made elsewhere. That code must not call the queue that runs it: the call
// would wait for the owner, busy running it, forever.
//
// # Each mechanism and the requirement it serves
//
//   - One mailbox, appended under a lock held for one append (mailbox.put): commands take
//     effect in the order sent, so the queue is linearizable, and no caller waits for room.
//   - Segments and their free list (mailbox.extend): a burst far ahead of the owner is never
//     copied under that lock; an idle queue keeps at most two segments.
//   - The sleeping flag and the wake token: an idle queue makes no wake-ups.
//   - ready, filled ahead (Queue.fill): a Get of the built-in FIFO is a channel receive.
//   - prefetch: a producer far ahead of the workers finds the FIFO's slots in the cache.
//   - The take watermark and the stamps (Queue.take, command.taken): a take is ordered with
//     the commands around it without a command of its own.
//   - overflow and the getter's nudge (Queue.fill, take): an owner asleep with ready full
//     wakes to fill it again once getters have emptied it.
//   - Getters that wait in the owner (Queue.wait): priorities, a grouped queue's turns and a
//     custom storage's order decide at the hand-out; a getter that gives up withdraws.
//   - Callers that wait (Queue.waits): the panic of a custom storage, or of metrics written for
//     client-go, reaches the caller whose command ran it, and such metrics are current when
//     the call returns, as client-go's are.
//   - Callers' instants (Queue.timed, opTaken): metrics that may trail the calls
//     (metrics.AsyncProvider) cost callers no wait, yet measure from the calls.
//   - The stash (Queue.keep): a panic nobody waits for is raised in the next caller that
//     waits; no item is lost to it.
//   - The handover (Queue.handOver, settle, tomb): ShutDown returns once the owner has exited,
//     yet the queue works on as client-go's does, callers then applying their own commands.
//   - Limiter adoption (Queue.Adopt, Do): an adopted limiter's state lives in the owner.
//   - Retry counts (Queue.counts): a maximum of retries is counted in the command that adds.
//   - One alarm (alarm, timers.go): delays, a named queue's unfinished-work ticks and, on an
//     injected clock, client-go's heartbeat.
//   - Due items released by a command to itself (opDue, posted once: duePosted): an item that
//     falls due takes effect in order with the commands around it, however many keep coming.
//   - Checks in callers (Queue.check, checkAdd): an item that cannot be a map key, or whose
//     group function panics, panics in the caller, so a grouped add need not wait.
//   - Forward and StopWhen (Config): a delay heap in front of a queue of another package.
//   - The view (view.go: Queue.publish, fresh, the mailbox's count of puts): Len and Superseded
//     answer without a command, and without waking the owner, whenever the owner had applied
//     every command sent, as dashboards and reconcilers poll them; a queue nobody asks publishes
//     nothing, and its mailbox counts puts in a plain field.
//   - Adds that keep their timing (opAddNow): a debounce window (the cores' rule) holds Add,
//     not AddAfter with no delay.
//   - Join: the first delaying queue built around a queue of this package shares its owner.
//   - Abandon: a queue dropped without ShutDown does not keep its goroutine.
//   - The Goexit guard (Queue.run): runtime.Goexit in code the owner runs (t.FailNow) ends the
//     process with a message, rather than leave every caller waiting.
package actor
