// Package actor runs each queue as one owner goroutine: the only goroutine that touches the
// queue's state (the FIFO machine of package queue or the priority machine of package
// priority, the delay heap of package delay, the rate limiters and the metrics). Callers talk to
// it through a mailbox and channels; no lock guards the state while the owner runs.
//
// # Rules
//
// The owner applies one of two sets of rules: client-go's (a FIFO, with a separate delay heap
// whose due items are added like any item), or the rules of controller-runtime's priority
// queue (priorities, and delays merged into the items). The shell around them (the mailbox,
// the turns, the timer, shutdown and handover) is the same. Time events are commands too: when
// delayed items fall due, the owner posts a command to its own mailbox, so that they take
// effect in order with every other command.
//
// # Mailbox
//
// Every command travels through one mailbox, so the owner applies commands in the order callers
// sent them: once Add returns, a Len or a Get that starts later, on any goroutine, sees the
// item. A caller's command is appended under a lock held for that one append; it never waits
// for room, and a long backlog is never copied: commands wait in a chain of segments. The owner
// collects every pending command at once, applies them, and sleeps on a wake-up channel and one
// timer when there are none: an idle queue on the real clock makes no wake-ups (see
// base.injected and base.startHeartbeat for an injected one) and keeps at most two segments of
// its mailbox, the largest its last burst used. A caller that wakes the owner does not yield to
// it: the owner runs once the caller blocks, or on an idle processor (see Queue.send). A
// command that answers (Len, NumRequeues, ShutDown) carries its own reply channel, buffered, so
// the owner never waits on a caller; the others return once appended. Len sends no command at
// all while the owner sleeps with nothing to apply: the owner leaves its queue's length in the
// mailbox as it goes to sleep, and Len reads it, less the items getters have taken since,
// without taking the mailbox lock (see mailbox.length).
//
// # Handing out items
//
// Items reach getters through a buffered channel, ready. The owner reserves the next items in
// order and puts them there before anyone asks (package queue explains the two steps of a get).
// A getter that takes an item sends no command: it raises a watermark, the highest reservation
// taken so far, and every command appended afterwards carries the watermark its caller read
// just before appending it. The owner starts the reservations a command's stamp covers before
// applying the command (see mailbox for stamps that come out of order). So a take and a command
// are ordered exactly as they happened: an Add sent before a Get finds its item still waiting,
// an Add sent after finds it in processing. This keeps Get stingy and linearizable without a
// message per Get. Since takes tell the owner nothing, the getter whose take empties ready,
// while more items wait than it had room for, nudges the owner awake to refill it. A storage
// that may reorder its items (any storage but the built-in FIFO) is not read ahead: each getter
// asks for one item, and only then does the owner reserve it. A priority queue goes further: a
// getter's request waits in the owner, which hands the best item to that getter alone, on its
// reply channel, at the moment it can, so priorities decide at the hand-out.
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
// A custom storage or a metrics provider runs inside the owner (a rate limiter not from package
// limiter does not: callers ask it in their own goroutines, see Limiter). If it panics, the
// owner recovers and raises the panic in the goroutine of the caller whose command ran it: on a
// queue with such code, callers wait for the outcome of every command that may run it. (With
// metrics, this also makes the metrics current when Add, Get or Done returns, as client-go's
// are.) Metrics whose provider allows it (metrics.AsyncProvider) are the exception: the
// built-in FIFO records them without making anyone wait, from instants its callers read (an
// add and a Done carry theirs; a getter tells the owner when it took its item, in a command it
// does not wait for), and each command takes effect whatever its metrics do.
//
// A panic with nobody waiting (of asynchronous metrics, a delayed add or a periodic metric
// update) is raised in the next caller of the queue that waits for an answer (not a call to
// its limiter made elsewhere, see below); the item it concerned is not lost. A Get that raises
// a panic hands out nothing: the item it was to return goes back to the queue, so that no item
// is left in processing with nobody to call Done. runtime.Goexit cannot be recovered: code the
// owner runs must not call it (t.FailNow, t.Fatal), and if it does, the owner ends the process
// with a panic that says so, rather than leave every caller waiting for a goroutine that is
// gone (see Queue.run).
//
// # Rate limiters
//
// A rate limiter of package limiter that no other queue holds becomes part of the queue's
// state: the queue adopts it when it is built (Queue.Adopt), and its owner calls it without
// locks. A call made to it elsewhere, by user code or by a second queue that shares it, reaches
// the owner as a command (Queue.Do), applied in its place like any other, so the limiter's
// state has one writer; its answer carries no panic kept for the queue's own callers. As it
// hands the state over at shutdown, the owner gives the limiter back (limiter.Release), so
// that it refers to the queue no more and another queue may adopt it. A limiter the queue does
// not adopt it calls from its callers' goroutines, through the limiter's own methods.
//
// A queue's owner goroutine is started in one place: Queue.start.
//
// # Each mechanism and the requirement it serves
//
// Delete a mechanism when no requirement below needs it any more.
//
//   - One mailbox, appended under a lock held for one append (mailbox.put): commands take
//     effect in the order they were sent, so the queue is linearizable (stress/linearizability),
//     and no caller ever waits for room.
//   - Segments and their free list (mailbox.extend, keepLargest): a burst far ahead of the owner
//     is never copied under that lock, and an idle queue keeps at most two segments.
//   - The sleeping flag and the wake token (mailbox.sleeping, wake): an idle queue makes no
//     wake-ups on the real clock, and a put wakes a sleeping owner once.
//   - ready, read ahead (fifo.refill): a Get costs a channel receive, no command (throughput of
//     the built-in FIFO, rows 1 to 4 of the comparison).
//   - The take watermark and the stamps (Queue.taken, command.taken): a take is ordered with the
//     commands around it without a command of its own, so Get stays stingy and linearizable.
//   - overflow and the getter's nudge (fifo.refill, Queue.take): an owner asleep with ready
//     full is woken to refill it once getters have emptied it (liveness; the unnudged bug of
//     stress/internal/mutation).
//   - The resting length (mailbox.length, restRecord): Len answers without waking a sleeping
//     owner (observers polling Len, row 9 of the comparison).
//   - waits (Queue.call for every command): a custom storage or a synchronous metrics provider
//     runs in the owner, and its panic must reach the caller whose command ran it; client-go's
//     metrics are current when a call returns (client-go's own TestMetrics).
//   - timed (Queue.post, opTaken): a provider that allows it (metrics.AsyncProvider) is recorded
//     without making callers wait, from the instants of the calls (rows P1e to P1h, P2a).
//   - The stash and the owed panics (base.keep, fifo.owe): a panic with nobody waiting, of a
//     delayed add, an asynchronous metric or a tick, is raised in the next caller that waits,
//     and no item is lost to it.
//   - The handover and its lock (Queue.handOver, settle, tomb): ShutDown returns once the owner
//     goroutine has exited, yet the queue works on as client-go's does (Get of the items left,
//     Done, Forget, NumRequeues).
//   - Limiter adoption (Queue.Adopt, Do, release; limiter.Adopt): a limiter of package limiter
//     keeps its state in the owner of the queue that adopted it, with no lock of its own.
//   - The alarm (alarm, base.deadline) and the owner's due command (base.postDue): delays wait
//     on the queue's clock with one timer, and a due item takes effect in order with commands.
//   - The tick alarm (base.ticksApart): a priority queue on an injected clock still moves its
//     unfinished-work gauges on the real clock, as controller-runtime's does.
//   - The heartbeat (base.startHeartbeat): on an injected clock a delaying queue always waits on
//     its clock, as client-go's does, which tests written for client-go wait for.
//   - Key and group checks (Queue.check, checkAdd): an item that cannot be a map key, or whose
//     group function panics, panics in the caller, not in the owner, so a grouped queue's adds
//     need not wait for the owner (base.ownGroup covers a function that changes its mind).
//   - Retries and DoLater (retries.go): a maximum of retries counts in the owner, through Do for
//     AddRateLimited, which must know whether to give up, and DoLater for Forget, which need
//     not wait.
//   - Abandon and inBubble: a queue dropped without ShutDown is shut down by a cleanup, so its
//     goroutine does not outlive it (client-go's plain queue is collected); not in a synctest
//     bubble, whose channels a cleanup may not touch.
package actor
