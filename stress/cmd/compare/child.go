package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/stress/bench"
)

// The wake-ups are counted in a testing/synctest bubble, which needs a *testing.T. The command
// gets one by running itself again as a test program (testing.Main) with these variables set.
const (
	// childOutput names the file the child writes its figures to; set, it makes the process
	// the child.
	childOutput = "ACTORQUEUE_COMPARE_WAKEUPS_OUT"
	// childQueues is how many queues the child idles at once for row 7.
	childQueues = "ACTORQUEUE_COMPARE_WAKEUPS_QUEUES"
)

// wakeupFigures are one implementation's wake-ups per minute.
type wakeupFigures struct {
	// Many counts all the wake-ups of row 7's idle queues together.
	Many float64
	// PerKind counts one idle queue of each kind, in the order of bench.Kinds.
	PerKind []float64
}

// measureWakeups runs the child and returns its figures by implementation name.
func measureWakeups(idleQueues int) (map[string]wakeupFigures, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	out, err := os.CreateTemp("", "compare-wakeups-*.json")
	if err != nil {
		return nil, err
	}
	out.Close()
	defer os.Remove(out.Name())

	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childOutput+"="+out.Name(), childQueues+"="+strconv.Itoa(idleQueues))
	if log, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("wake-up child: %v\n%s", err, log)
	}
	data, err := os.ReadFile(out.Name())
	if err != nil {
		return nil, err
	}
	figures := map[string]wakeupFigures{}
	return figures, json.Unmarshal(data, &figures)
}

// runChild is the child's main: it counts the wake-ups and writes them to the file named by
// childOutput. It does not return.
func runChild() {
	queues, err := strconv.Atoi(os.Getenv(childQueues))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", childQueues, err)
		os.Exit(2)
	}
	test := func(t *testing.T) {
		figures := map[string]wakeupFigures{}
		for _, impl := range bench.Impls() {
			f := wakeupFigures{Many: bench.IdleWakeups(t, impl, bench.RateLimiting, queues, time.Minute)}
			for _, k := range bench.Kinds {
				f.PerKind = append(f.PerKind, bench.IdleWakeups(t, impl, k, 1, time.Minute))
			}
			figures[impl.Name] = f
		}
		data, err := json.Marshal(figures)
		if err == nil {
			err = os.WriteFile(os.Getenv(childOutput), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	matchAll := func(pattern, name string) (bool, error) { return true, nil }
	testing.Main(matchAll, []testing.InternalTest{{Name: "IdleWakeups", F: test}}, nil, nil)
}
