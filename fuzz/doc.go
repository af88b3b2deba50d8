// Package fuzz holds the library's coverage-guided fuzz targets; it has no code of its own
// outside its tests. Each target decodes its input into calls on one part of the library and
// checks every answer against a reference:
//
//   - FuzzQueue drives the three kinds of queue, built every way the root package allows, and
//     a reference queue written with a mutex after client-go's design, through the same calls,
//     and compares every answer, every Get and every shutdown, at the fake instant it happens.
//     The library's extensions are among the calls: AddBatch, GetWithContext and
//     ShutDownWithDrainContext with contexts that end at fuzzed instants, and Snapshot.
//   - FuzzBadInput does what FuzzQueue does with items of type any that include unhashable
//     values, extreme delays and rate limiters built from arbitrary numbers.
//   - FuzzPriorityQueue does what FuzzQueue does for the priority queue, against a reference of
//     controller-runtime's priority queue, with every option of AddWithOpts.
//   - FuzzGroups drives FIFO queues with the options Group, MaxPerGroup, MaxRetries and GiveUp
//     (groups of item mod k) against groupModel, per-group lists and a list of turns written
//     from the package documentation, and compares every Get's item, Len and every give-up.
//   - FuzzPriorityGroups does what FuzzPriorityQueue does with Group, MaxPerGroup, MaxRetries
//     and GiveUp, against prioModel with fairRef: rounds of groups per priority, and groups
//     set aside at their limit.
//   - FuzzPriorityState compares package priority's State, the machine inside the priority
//     queue, with the same reference, without goroutines or clock.
//   - FuzzDelayHeap compares the delay heap with a sorted slice and with container/heap.
//   - FuzzLimiterOptions builds the exponential and fast-slow limiters with the options
//     ForgetAfter, MaxTracked, JitterFactor and RandomSource, and compares them with a
//     reference written from the options' documentation.
//   - FuzzRateLimiters and FuzzBackoff compare the rate limiters and the backoff with their
//     formulas.
//
// The queue targets run every input in a testing/synctest bubble, so time is fake and each
// input replays the same way. The seed corpus, and every crasher found, lives in
// testdata/fuzz/<target>/ and runs with plain go test. To fuzz one target for an hour:
//
//	go test -run '^$' -fuzz '^FuzzQueue$' -fuzztime 1h ./fuzz/
package fuzz
