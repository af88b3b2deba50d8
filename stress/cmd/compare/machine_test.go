package main

import (
	"strings"
	"testing"
	"time"
)

func TestStealFromProcStat(t *testing.T) {
	from, ok := parseCPUTimes("cpu  100 0 50 800 10 0 0 40 5 0")
	if !ok || from.total != 1000 || from.steal != 40 || from.busy != 150 {
		t.Fatalf("parseCPUTimes = %+v, %v; want total 1000 (guest not counted twice), steal 40, busy 150", from, ok)
	}
	to, _ := parseCPUTimes("cpu  200 0 100 1500 10 0 0 190 9 0")
	if got, want := stealDuring(from, to), "During the run, the hypervisor gave 15% of the CPU time to other guests (steal, from /proc/stat)."; got != want {
		t.Errorf("stealDuring = %q, want %q", got, want)
	}
	if got := stealDuring(to, to); got != "" {
		t.Errorf("stealDuring of no time = %q, want none", got)
	}
	for _, line := range []string{"", "intr 1 2 3", "cpu 1 2 3", "cpu 1 2 3 4 5 6 7 x"} {
		if _, ok := parseCPUTimes(line); ok {
			t.Errorf("parseCPUTimes(%q) accepted a line that is not /proc/stat's first", line)
		}
	}
}

func TestOthersFromProcStat(t *testing.T) {
	// 10 s on 2 cores at 100 ticks a second: 2000 ticks, of which 1500 busy; this process ran
	// 6 s of them (600 ticks), so others ran 900 ticks, 45%.
	from, _ := parseCPUTimes("cpu  0 0 0 0 0 0 0 0 0 0")
	to, _ := parseCPUTimes("cpu  1000 100 300 500 0 50 50 0 0 0")
	if got, want := othersDuring(from, to, 10*time.Second, 6*time.Second, 2), "Other processes of this machine ran 45% of its CPU time meanwhile (busy time in /proc/stat less this process's own)."; got != want {
		t.Errorf("othersDuring = %q, want %q", got, want)
	}
	if got := othersDuring(from, to, 10*time.Second, 20*time.Second, 2); !strings.Contains(got, " 0%") {
		t.Errorf("othersDuring with more own time than busy time = %q, want 0%%", got)
	}
	if got := othersDuring(to, to, time.Second, 0, 2); got != "" {
		t.Errorf("othersDuring of no time = %q, want none", got)
	}
}
