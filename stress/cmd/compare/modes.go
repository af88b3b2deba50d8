package main

import "time"

// mode sizes a run: how many rounds and how much work per measurement.
type mode struct {
	name string
	// rounds is how many measured rounds each experiment runs, after one warm-up round.
	rounds int
	// cycleItems is how many items rows 1, 2, 3 and 9 process per run.
	cycleItems int
	// hotAdds is how many Adds row 4 makes per run.
	hotAdds int
	// floodItems is how many items row 5 adds per run (issue 5 says 100k).
	floodItems int
	// retryItems is how many items row 6 retries per run.
	retryItems int
	// latencyItems is how many items row 8 adds per run, one every latencyInterval.
	latencyItems    int
	latencyInterval time.Duration
	// idleQueues is how many live queues row 7 creates (issue 5 says 10,000).
	idleQueues int
	// kindQueues is how many queues of each kind the goroutine count per kind creates.
	kindQueues int
	// shutdownQueues is how many delaying queues the count after ShutDown goes through.
	shutdownQueues int
	// queuedItems is how many items the bytes-per-item measurement queues.
	queuedItems int
	// allocCycles is how many Add/Get/Done cycles the allocation count runs.
	allocCycles int
	// objects and events size rows P1, P2 and P4: how many objects there are, and how many
	// adds the producer makes in all (the initial list of objects included).
	objects, events int
	// busyDeadline cuts a run of row P2 short: one run can take ten times as long as another.
	busyDeadline time.Duration
	// steadyDuration is how long row P3 offers items at each rate.
	steadyDuration time.Duration
	// dupObjects and dupAdds size rows D: how many keys, and how many adds in all (issue 35
	// says 5,000 keys added about 12 times each).
	dupObjects, dupAdds int
	// manyKeys is how many keys row M adds at once (issue 35 says 60,000).
	manyKeys int
	// heapItems is how many distinct keys rows H queue (-million; issue 36 says a million).
	heapItems int
	// burstKeys change in bursts in rows U, their bursts starting over burstSpread (in rows X, 3
	// in 10 of them over twice as long).
	burstKeys   int
	burstSpread time.Duration
}

// quick is for CI: the whole run takes about 40 s on two cores, of which issue 26's rows take
// half, and more on a busy machine. Its runs are smaller than issue 5's (a 30k-item flood, 2,000
// idle queues) and issue 26's rows shorter, so its figures are rougher.
var quick = mode{
	name:            "quick",
	rounds:          3,
	cycleItems:      30_000,
	hotAdds:         60_000,
	floodItems:      30_000,
	retryItems:      3_000,
	latencyItems:    1_500,
	latencyInterval: 100 * time.Microsecond,
	idleQueues:      2_000,
	kindQueues:      50,
	shutdownQueues:  100,
	queuedItems:     30_000,
	allocCycles:     30_000,
	objects:         1_000,
	events:          3_000,
	busyDeadline:    time.Second,
	steadyDuration:  100 * time.Millisecond,
	dupObjects:      1_500,
	dupAdds:         18_000,
	manyKeys:        10_000,
	heapItems:       200_000,
	burstKeys:       80,
	burstSpread:     400 * time.Millisecond,
}

// full is the default: a few minutes, for the README's table.
var full = mode{
	name:            "full",
	rounds:          7,
	cycleItems:      300_000,
	hotAdds:         500_000,
	floodItems:      100_000,
	retryItems:      20_000,
	latencyItems:    10_000,
	latencyInterval: 100 * time.Microsecond,
	idleQueues:      10_000,
	kindQueues:      200,
	shutdownQueues:  200,
	queuedItems:     200_000,
	allocCycles:     200_000,
	objects:         4_000,
	events:          12_000,
	busyDeadline:    5 * time.Second,
	steadyDuration:  500 * time.Millisecond,
	dupObjects:      5_000,
	dupAdds:         60_000,
	manyKeys:        60_000,
	heapItems:       1_000_000,
	burstKeys:       240,
	burstSpread:     time.Second,
}
