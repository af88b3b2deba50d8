// Package actor runs each queue as one owner goroutine: the only goroutine that touches the
// queue's state (the FIFO machine of package queue, the delay heap of package delay, the rate
// limiters and the metrics). Callers talk to it through channels; no lock guards the state
// while the owner runs.
//
// # Mailbox
//
// Every command travels through one buffered channel, the mailbox, so the owner applies
// commands in the order callers sent them: once Add returns, a Len or a Get that starts
// later, on any goroutine, sees the item. A command that answers (Len, NumRequeues, ShutDown)
// carries its own reply channel, buffered, so the owner never waits on a caller. The others
// (Add, Done, AddAfter) return as soon as they are in the mailbox. The owner drains the mailbox
// in batches and sleeps in a select on it and on one timer; an idle queue makes no wake-ups.
//
// # Handing out items
//
// Items reach getters through a second buffered channel, ready. The owner reserves the next
// items in order and puts them there before anyone asks; a getter takes one and tells the
// owner which reservation it took before Get returns. Until then the item still counts as
// waiting, which keeps Get stingy and linearizable (see package queue). A storage that may
// reorder its items (any storage but the built-in FIFO) is not read ahead: each getter asks
// for one item, and only then does the owner reserve it.
//
// # Shutdown and handover
//
// ShutDown returns once the owner goroutine has exited. client-go lets a queue go on after
// shutdown (queued items are still handed out, Done still requeues, NumRequeues and Forget
// still work), so the state outlives the goroutine: on its way out, the owner hands the state
// over. It takes the handover lock, marks the handover, applies whatever is left in the
// mailbox and leaves. From then on a caller applies its own command, holding the lock, after
// applying anything still in the mailbox. Nothing waits after shutdown, so the lock is only
// ever held for the time of one command.
//
// # User code
//
// A custom storage, a rate limiter not from package limiter, or a metrics provider runs inside
// the owner. If it panics, the owner recovers and raises the panic in the goroutine of the
// caller whose command ran it: on a queue with such code, callers wait for the outcome of
// every command that may run it. (With metrics, this also makes the metrics current when Add,
// Get or Done returns, as client-go's are.) A panic with nobody waiting, in a delayed add or a
// periodic metric update, is raised in the next caller that waits for an answer.
//
// This package also holds ParallelizeUntil: it is the one place that starts goroutines.
package actor
