package main

import (
	"fmt"
	"sync"
	"time"
)

// started is when the program started: each line of output shows the time since.
var started = time.Now()

// outputMu keeps the lines of the orchestration and of the replicas whole.
var outputMu sync.Mutex

// say prints one line, formatted as fmt.Printf does, after the seconds since the start.
func say(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	outputMu.Lock()
	defer outputMu.Unlock()
	fmt.Printf("%5.1fs  %s\n", time.Since(started).Seconds(), line)
}
