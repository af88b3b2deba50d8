package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
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

// cpuTimes are the machine's CPU time counters, in clock ticks: all of it, the part the
// hypervisor gave to other guests (steal), during which this machine's work waited, and the
// part some process of this machine ran (busy: user, nice, system, irq and softirq).
type cpuTimes struct{ total, steal, busy uint64 }

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
		switch i {
		case 0, 1, 2, 5, 6:
			t.busy += n
		case 7:
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

// othersDuring describes, in a sentence, the share of the machine's CPU time that processes
// other than this one (and its children) ran between two readings, given the CPU time this
// process and its children used meanwhile (getrusage), or returns "" when it cannot tell. The
// ticks' length is read off the counters themselves: total ticks over wall time and cores.
func othersDuring(from, to cpuTimes, wall, own time.Duration, cores int) string {
	if to.total <= from.total || to.busy < from.busy || wall <= 0 || cores <= 0 {
		return ""
	}
	total := float64(to.total - from.total)
	ticksPerSecond := total / (wall.Seconds() * float64(cores))
	others := max(0, float64(to.busy-from.busy)-own.Seconds()*ticksPerSecond) / total
	return fmt.Sprintf("Other processes of this machine ran %.0f%% of its CPU time meanwhile (busy time in /proc/stat less this process's own).", 100*others)
}
