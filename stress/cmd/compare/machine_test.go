package main

import "testing"

func TestStealFromProcStat(t *testing.T) {
	from, ok := parseCPUTimes("cpu  100 0 50 800 10 0 0 40 5 0")
	if !ok || from.total != 1000 || from.steal != 40 {
		t.Fatalf("parseCPUTimes = %+v, %v; want total 1000 (guest not counted twice), steal 40", from, ok)
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
