//go:build unix

package main

import (
	"syscall"
	"time"
)

// ownCPU returns the CPU time, user plus system, this process and its children that have been
// waited for (the wake-up child) have used so far, and false where getrusage fails.
func ownCPU() (time.Duration, bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0, false
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano()), true
}
