//go:build !unix

package bench

import "time"

// ProcessCPU returns false: this system has no getrusage, so the CPU figures are not known.
func ProcessCPU() (cpu time.Duration, ok bool) { return 0, false }
