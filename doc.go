// Package workqueue is a drop-in replacement for k8s.io/client-go/util/workqueue in which every
// queue is one owner goroutine. Change the import path and nothing else: the names, the
// signatures and the behaviour are client-go's (v0.37.2).
//
// Queues are:
//   - Fair: items are processed in the order in which they are added.
//   - Stingy: an item added several times before it is processed is processed once, and an
//     item is never processed by two workers at once. Added again while it is being
//     processed, it is processed again after Done.
//   - Safe for many producers and consumers at once.
//   - Shut down cleanly: after ShutDown, workers receive the items still queued, then
//     shutdown == true.
//
// # One goroutine per queue
//
// A queue of any kind (plain, delaying or rate-limiting) is one goroutine that owns its state:
// the queued, dirty and processing sets, the delay heap, the rate limiter and the metrics.
// Callers send it commands over channels; nothing locks the state. An idle queue on the real
// clock makes no wake-ups (client-go's delaying queue wakes every 10 s, and a queue with
// metrics every 500 ms; on a clock passed in the config, ours keep those timers), and ShutDown
// returns only after the goroutine has exited, so a goroutine-leak check right after ShutDown
// passes.
//
// # Differences from client-go
//
//   - Done of an item that is not being processed does nothing. client-go requeues it if it
//     is queued, so that it is handed out twice.
//   - An item that cannot be a map key (a slice in a queue of any) panics in the caller's
//     goroutine in every method that takes an item, with a runtime.Error (as client-go's map
//     panics with) whose message names the method. client-go panics in Add, but in AddAfter it
//     crashes the process from its own goroutine, and its Forget and NumRequeues hand the item
//     to the limiter unchecked (a token bucket takes it without a panic).
//   - A queue adopts a rate limiter of this package and calls it from its own goroutine,
//     without locks. A call made to that limiter elsewhere, by your code or by a second queue
//     sharing it, runs in the adopting queue's goroutine (see package limiter). A limiter of
//     your own is called in the caller's goroutine, as in client-go.
//   - The bucket limiters read the queue's clock, so a fake clock governs them too.
//   - Invalid constructor arguments (negative delays, a nil part of a combined limiter) panic
//     at once with a message that starts with "workqueue:". A rate-limiting queue given a nil
//     limiter works, as in client-go, until AddRateLimited, Forget or NumRequeues asks it: they
//     panic in the caller with a runtime.Error that says so.
//   - ParallelizeUntil raises a panic from a worker in the caller's goroutine instead of
//     crashing the process.
//   - ItemExponentialFailureRateLimiter returns its maximum delay where client-go's arithmetic
//     overflows into a negative delay (a base of 1ns after 63 failures).
package workqueue
