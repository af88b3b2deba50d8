//go:build unix

package bench

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time the process has used so far, user plus system, from
// getrusage(RUSAGE_SELF): every thread of the process, the Go runtime's included (the garbage
// collector, the scheduler spinning for work). ok is false where the call fails.
func ProcessCPU() (cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
