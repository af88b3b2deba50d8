// Package actor runs each queue as one owner goroutine around a pure core: the state machine
// of package queue (client-go's rules) or queue/priority (controller-runtime's). The owner is
// the only goroutine that touches the core, the queue's rate limiter and its metrics; callers
// reach it through a mailbox, and nothing locks the state. This is the only package that
// starts a queue's goroutine (see Queue.start).
//
// In a turn, the owner collects every pending command at once, applies each to the core with
// the instants it reads, records the metric events the core returns, and answers the callers
// that wait. Then it does what time has brought (the release of due items goes to its own
// mailbox, so that it takes effect in order with the commands), hands items out, arms its
// timer and collects again; with nothing to apply, it sleeps until a command, a getter's nudge
// or the timer wakes it.
//
// The owner runs code of others: a custom storage, a group function, metrics, and the
// functions that callers of an adopted limiter hand it. That code must not call the queue that
// runs it: the call would wait for the owner, which is busy running the caller, and hang
// forever. Go gives a goroutine no identity to check this by; the cheapest way to tell,
// parsing a stack trace, costs 4 to 40 µs a call.
//
// # Each mechanism and the requirement it serves
//
// Delete a mechanism when no requirement below needs it any more.
//
//   - One mailbox, appended under a lock held for one append (mailbox.put): commands take
//     effect in the order they were sent, so the queue is linearizable, and no caller waits
//     for room.
//   - Segments and their free list (mailbox.extend, keepLargest): a burst far ahead of the
//     owner is never copied under that lock, and an idle queue keeps at most two segments.
//   - The sleeping flag and the wake token (mailbox.sleeping, wake): an idle queue makes no
//     wake-ups on the real clock, and a put wakes a sleeping owner once.
//   - ready, filled ahead (Queue.fill): a Get of the built-in FIFO costs a channel receive and
//     no command (rows 1 to 4 of the comparison).
//   - The take watermark and the stamps (Queue.take, command.taken): a take is ordered with
//     the commands around it without a command of its own, so Get stays stingy and
//     linearizable.
//   - overflow and the getter's nudge (Queue.fill, Queue.take): an owner asleep with ready full
//     is woken to fill it again once getters have emptied it.
//   - Getters that wait in the owner (Queue.wait, refill): a priority queue's priorities, a
//     grouped queue's turns and a custom storage's order decide at the hand-out, and a getter
//     that gives up withdraws, so no item goes to a caller that has gone.
//   - Callers that wait (Queue.waits): the panic of a custom storage or of metrics written for
//     client-go reaches the caller whose command ran it, and such metrics are current when a
//     call returns, as client-go's are.
//   - Callers' instants (Queue.timed, opTaken): metrics that may trail the calls
//     (metrics.AsyncProvider) cost callers no wait, yet measure from the calls.
//   - The stash (Queue.keep): a panic with nobody waiting (of a due item's metrics, a tick, a
//     forward) is raised in the next caller that waits; no item is lost to it.
//   - The handover and its lock (Queue.handOver, settle, tomb): ShutDown returns once the owner
//     goroutine has exited, yet the queue works on as client-go's does (Get of the items left,
//     Done, Forget, NumRequeues), callers then applying their own commands.
//   - Limiter adoption (Queue.Adopt, Do, release): the state of a limiter of package limiter
//     lives in the owner, called without locks; calls made elsewhere run there too.
//   - Retry counts (Queue.counts): a maximum of retries is counted in the command that adds.
//   - The alarm and the timers (alarm, timers): delays wait on the queue's clock with one
//     timer; a named queue's unfinished-work ticks and, on an injected clock, client-go's
//     heartbeat keep client-go's schedule.
//   - Checks in callers (Queue.check, checkAdd): an item that cannot be a map key, or whose
//     group function panics, panics in the caller, so a grouped add need not wait.
//   - Forward and StopWhen (Config): a delay heap in front of a queue of another package.
//   - Join: the first delaying queue built around a queue of this package shares its owner.
//   - Abandon and inBubble: a queue dropped without ShutDown is shut down by a cleanup, so its
//     goroutine does not outlive it; not in a synctest bubble, whose channels a cleanup may not
//     touch.
//   - The Goexit guard (Queue.run): code the owner runs that calls runtime.Goexit (t.FailNow)
//     ends the process with a message that says so, rather than leave every caller waiting.
package actor
