//go:build !unix

package main

import "time"

// ownCPU returns false: without getrusage, the command cannot tell its own CPU time.
func ownCPU() (time.Duration, bool) { return 0, false }
