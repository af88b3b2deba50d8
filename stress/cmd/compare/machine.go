package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// machine describes where the figures were measured, in one line.
func machine() string {
	model := cpuModel()
	if model == "" {
		model = "CPU model unknown"
	}
	return fmt.Sprintf("%s, %d cores, GOMAXPROCS %d, %s %s/%s",
		model, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "" where there is none.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		key, value, ok := strings.Cut(scanner.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// cpuTimes are the machine's CPU time counters, in clock ticks: all of it, and the part the
// hypervisor gave to other guests (steal), during which this machine's work waited.
type cpuTimes struct{ total, steal uint64 }

// readCPUTimes returns the counters of /proc/stat, and false where there are none.
func readCPUTimes() (cpuTimes, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return parseCPUTimes(line)
}

// parseCPUTimes reads the first line of /proc/stat: "cpu" then user, nice, system, idle,
// iowait, irq, softirq and steal (guest and guest_nice follow, already counted in user and
// nice).
func parseCPUTimes(line string) (cpuTimes, bool) {
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return cpuTimes{}, false
	}
	var t cpuTimes
	for i, field := range fields[1:9] {
		n, err := strconv.ParseUint(field, 10, 64)
		if err != nil {
			return cpuTimes{}, false
		}
		t.total += n
		if i == 7 {
			t.steal = n
		}
	}
	return t, true
}

// stealDuring describes the steal between two readings, in a sentence, or returns "" when
// the counters did not move.
func stealDuring(from, to cpuTimes) string {
	if to.total <= from.total || to.steal < from.steal {
		return ""
	}
	share := float64(to.steal-from.steal) / float64(to.total-from.total)
	return fmt.Sprintf("During the run, the hypervisor gave %.0f%% of the CPU time to other guests (steal, from /proc/stat).", 100*share)
}
