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
//     shutdown == true. Items still waiting on AddAfter or AddRateLimited are dropped, as in
//     client-go (and those waiting out a debounce window): a drain finishes the items in
//     processing, not the retries to come.
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
// # Groups, fairness and limits
//
// Every queue config of this package has two options beyond client-go's, both off at their zero
// values, which leave the queue as it was:
//
//   - Group names the group of each item (the namespace of a key, say, or its cluster and
//     namespace). Groups then take turns, round robin: the queue hands out the oldest item of
//     one group, then of the next group that has items, and so on, first in, first out within a
//     group. A group whose first item arrives joins the round at its end. So an item waits
//     behind at most one item of each group ahead of it in the round, however many items those
//     groups hold: a burst of 10,000 items in one group delays another group's item by one turn
//     at most. In a priority queue, groups take turns within each priority, and a higher
//     priority still goes first.
//   - MaxPerGroup is the most items of one group in processing at once (handed out by Get, Done
//     not yet called). A group at its limit is skipped; its items stay queued and go out, in
//     their group's order, as the group's items are done. The queue stays stingy and fair:
//     Len and the depth metric count the items held back as queued. Zero means no limit;
//     a limit needs a Group function.
//
// Group is called in the goroutine of each caller that adds an item (Add, AddBatch, AddAfter,
// AddRateLimited, AddWithOpts), before the add, and again in the queue's goroutine as the item
// enters the queue (an item added again during its processing keeps its group): it must be
// quick, must not call the queue, and should depend on the item alone. Its panic is raised in
// the caller, and nothing is added (none of a batch's items); the queue goes on. Adds do not
// wait for the queue's goroutine, as they would for a custom Queue. A function that returns for
// an item in the caller and panics for it in the queue's goroutine loses no item: the item joins
// the group named "", and the panic is raised in the next caller that waits for an answer. A
// grouped FIFO queue hands items only to getters that wait, so that the turn is decided when a
// getter asks, not ahead of it.
//
// Once a queue is shutting down, a FIFO queue's limit no longer holds: its workers receive every
// item still queued, as client-go's do after ShutDown, and a ShutDownWithDrain waits for them. A
// priority queue hands out nothing once shutting down. Delays do not take part: a delayed item
// joins its group's turn when it becomes ready, as though added then; an item held back by its
// group's limit keeps its place in its group. Rate limiting and retries apply per item, as
// without groups.
//
// # Retries
//
// The rate-limiting and priority configs have MaxRetries, the most rate-limited requeues of an
// item, and GiveUp, a function to hear of the items given up on; zero values mean no maximum,
// as in client-go. The queue counts each item's AddRateLimited calls (on a priority queue, also
// its AddWithOpts calls with RateLimited) since the item's last Forget. The first MaxRetries of
// them requeue the item as usual; the next one gives up on it instead: the item is not added,
// the queue forgets it (its count and, through Forget, the rate limiter's failures), the
// given-up counter workqueue_given_up_total{name} counts it (with a provider that offers it,
// see metrics.GivenUpProvider; an unnamed queue records nothing), and GiveUp is called with the
// item and its attempts, MaxRetries + 1: the failures behind each requeue, and the last one.
// An Add or AddAfter of the item is not counted and still adds it; NumRequeues is still the
// rate limiter's count. A call that gives up adds nothing, so it does not ask a limiter the
// queue has adopted, nor that of a queue around another package's delaying queue: a token
// bucket keeps its token. Any other limiter (one of your own, or one another queue adopted
// first, see "Differences from client-go") is asked in the caller first, as client-go asks
// it, so that its panic uses up no retry.
//
// The count is the queue's, whatever the limiter (a token bucket counts no failures). GiveUp
// runs in the goroutine of the AddRateLimited that gave up, after the item is forgotten; if it
// panics, the panic is raised there, and the item stays forgotten. Two AddRateLimited calls of
// the same item at once are counted one after the other: if the first gives up, the count
// starts again from zero, and the second requeues the item as its first retry. Counting goes on
// after shutdown, as client-go asks its limiter then: a call past the maximum gives up, and one
// below it is dropped, as every add then is. A count lasts until Forget or a give-up, so call
// Forget when an item succeeds, as the limiter needs anyway.
//
// # Debounce
//
// Every queue config has a Debounce option, off at its zero value. With a Window, an item added
// is held back until Window has passed without another add of it, or until MaxWait has passed
// since the first add of the burst, whichever comes first; each add while it waits starts its
// Window again. An object that changes ten times in a second is processed once, after the
// burst, with its latest state: the processings saved are API calls saved.
//
//   - Which adds wait: Add and AddBatch, and on a priority queue AddWithOpts with neither After
//     nor RateLimited. AddAfter (even with a zero delay) and AddRateLimited keep the timing they
//     ask for, and an item they make ready leaves its window: that processing covers the adds
//     the window held. An add of an item already waiting to be handed out, or due again after
//     its Done, merges with it as without the option: the window holds only new changes.
//   - An item in processing that is added again waits out its window too; it is superseded at
//     once (see "Superseded"), and handed out again after its Done and its window, once.
//   - Priority queues: an item's adds merge as controller-runtime merges them, the highest
//     priority kept; an item waiting out its window is also released no later than a delayed
//     add of it asked for. Groups: an item joins its group's turn when its window ends, as a
//     delayed item does when it falls due.
//   - Len, the depth metric and Snapshot.Queued leave held items out, as they leave delayed
//     items out: they are not waiting for a worker yet. Snapshot.Debouncing counts them, and a
//     provider that implements metrics.DebounceProvider records the gauge of them and the counter
//     of adds absorbed (each add that restarted a window); the Prometheus and controller-runtime
//     modules' providers do, as workqueue_debouncing and workqueue_debounced_adds_total, for
//     debounced queues only. An item counts one add when its window ends, and its queue duration
//     runs from then, as a delayed item's does.
//   - Shutdown: a window is a delay that adds restart, so ShutDown and ShutDownWithDrain drop the
//     held items with the delayed ones (a priority queue, which hands nothing out once shutting
//     down, leaves them waiting). An item in processing whose add was held is then not
//     superseded: it will not be handed out again.
//
// A MaxWait of zero sets no bound: an item added more often than every Window is then never
// handed out, so set one. The constructors panic on a negative Window or MaxWait, a MaxWait
// without a Window or below it, and on a Debounce for a queue of another package.
//
// # Superseded
//
// Every queue tells the holder of an item whether it was added again since it was handed out
// (TypedSuperseder, among the TypedExtensions): Superseded(item) is true while the item is in
// processing and an add of it came after its getter took it, so that the queue will hand it out
// again after Done. A long processing can check it between steps and stop early, or skip a
// write that is already stale. Adds merged before the Get do not count; a delayed add counts
// once it falls due, an add held by a debounce window at once. On a priority queue, an entry
// of the item that is ready, or waits out a window, supersedes it; one delayed by AddAfter or
// the rate limiter does once it falls due. Groups change nothing. It is false for an item not
// in processing, and for an item whose held add a shutdown dropped.
//
// It is cheap: a few atomic reads once the queue's goroutine has published what it knows (see
// "Len"), a round trip to it only while it has commands still to apply. A queue nobody asks
// pays nothing: the goroutine keeps the set of superseded items only once someone has asked.
// controller-runtime reconcilers ask through their context (the controllerruntime module's
// Link and Superseded). A wrapper that knows more can implement TypedSuperseder itself, as
// the sharding module's Queue does: an item whose bucket its replica has lost or handed to
// another, which processes the item from then on, is superseded too.
//
// # Len
//
// Len, like client-go's, is exact when it returns: it counts every add and every Get that
// returned before it began. It sends the queue's goroutine no command, and so does not wake it,
// whenever that goroutine has applied every command sent (its adds and Dones, say): once Len has
// been called, the goroutine publishes its queue's length at the end of each turn, and Len
// reads it, less the items workers have taken since from those handed out ahead. Otherwise, as
// for a queue with a custom Queue (whose Len is its own code), it asks.
//
// # Code the queue runs
//
// A queue runs some of your code in its own goroutine: a custom Queue (storage), the Group
// function, and the metrics of its provider (but the retries and given-up counters, which
// AddAfter and AddRateLimited count in the caller, and GiveUp, which runs in the caller). That
// code must not call the queue it runs in (Len, Add, Get, anything): the call waits for the
// queue's goroutine, which is busy running the code that made it, and hangs forever, a
// deadlock with no message; the items waiting are never handed out. client-go deadlocks the
// same way (its code runs under the queue's lock). Calling another queue is fine. The queue
// cannot tell such a call from any other cheaply: Go gives a goroutine no identity to check.
//
// A panic of that code does not stop the queue, and loses no item: every call takes effect
// first, and the panic is then raised in a caller. With a provider written for client-go
// (synchronous, the default), each call waits for the queue to record its metrics, and a
// metric's panic is raised in the call whose metric panicked: Add has added its item, Done has
// ended its processing, and calling them again changes nothing. A Get whose item's metrics
// panic returns no item: the item waits again. With a provider that lets its metrics trail
// (AsyncMetricsProvider, such as this repository's Prometheus provider), and for what no call
// waits for (a delayed item falling due, the unfinished-work gauges), the panic is raised in the
// next call that waits for an answer (Len, NumRequeues, ShutDown, Snapshot).
// runtime.Goexit (t.FailNow) in that code ends the process with a message that says so.
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
//   - A metric that panics does not abort the call (see "Code the queue runs"): client-go tells
//     its metrics first, so its Add whose metric panics adds nothing, and its Done whose metric
//     panics leaves the item in processing for good. The retries counter likewise counts once
//     the item is on its way: client-go's drops the item when it panics.
package workqueue
