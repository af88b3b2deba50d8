// Command compare measures actorqueue's FIFO queue, client-go's workqueue, actorqueue's priority
// queue (the controllerruntime module's) and controller-runtime's priorityqueue side by side on
// issue 5's workloads and issue 26's controller workloads (rows P1 to P4), and prints the table:
// per row, each implementation's median and how many times better each of actorqueue's queues
// is than the queue it replaces, with the targets of issue 5 marked met (✓) or missed (✗). It
// writes the same table to a Markdown file and the throughput rows to an SVG chart.
//
// Run it from the repository root:
//
//	go run ./stress/cmd/compare            # full: 7 rounds, about ten minutes
//	go run ./stress/cmd/compare -quick     # CI: 3 rounds of smaller runs, about a minute
//	go run ./stress/cmd/compare -million   # rows H alone: a queue of a million distinct keys
//
// -only D,P2 runs only the experiments with rows of those ids or prefixes.
//
// Progress goes to standard error, the table to standard output.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/actorqueue/workqueue/stress/bench"
)

func main() {
	if os.Getenv(childOutput) != "" {
		runChild()
	}
	quickMode := flag.Bool("quick", false, "quick mode for CI: fewer rounds and smaller runs")
	outDir := flag.String("out", filepath.Join("stress", "results"), "directory for compare.md and compare.svg")
	only := flag.String("only", "", "comma-separated row ids or id prefixes (P2,D): run only the experiments with such a row")
	million := flag.Bool("million", false, "run rows H alone, the heap of a queue of a million distinct keys (200k with -quick), and write million.md")
	flag.Parse()

	m := full
	if *quickMode {
		m = quick
	}
	command := strings.Join(append([]string{"go run ./stress/cmd/compare"}, os.Args[1:]...), " ")
	started := time.Now()
	where := machine()
	fmt.Fprintf(os.Stderr, "%s mode, %d rounds after a warm-up, on %s\n", m.name, m.rounds, where)

	cpuBefore, cpuKnown := readCPUTimes()
	ownBefore, ownKnown := ownCPU()
	runStart := time.Now()
	experiments, explained, name := selected(plan(m, wakeupsOnce(m.idleQueues)), *only), methods, "compare"
	if *million {
		experiments, explained, name = heapPlan(m.heapItems), heapMethods, "million"
	}
	res := run(experiments, bench.Impls(), m.rounds, os.Stderr)
	wall := time.Since(runStart)
	conditions := "Machine: " + where + "."
	if !*million {
		conditions += fmt.Sprintf("\nRows P, D, M: %v of reconcile CPU is %d rounds of FNV hashing, as timed at the start.", shortWork, bench.WorkFor(shortWork))
	}
	if cpuAfter, ok := readCPUTimes(); ok && cpuKnown {
		if steal := stealDuring(cpuBefore, cpuAfter); steal != "" {
			conditions += "\n" + steal
		}
		if ownAfter, ok := ownCPU(); ok && ownKnown {
			if others := othersDuring(cpuBefore, cpuAfter, wall, ownAfter-ownBefore, runtime.NumCPU()); others != "" {
				conditions += "\n" + others
			}
		}
	}

	report := fmt.Sprintf("Measured %s with `%s` (%s mode, %d rounds, %s).\n%s\n\n%s\n\n%s\n%s\n",
		started.Format("2006-01-02 15:04 MST"), command, m.name, m.rounds, time.Since(started).Round(time.Second),
		conditions, tableLegend, res.markdown(), explained)
	fmt.Print(report)
	if err := write(*outDir, name, report, res.chart("Throughput per row, median over rounds (longer is better) — "+started.Format("2006-01-02"))); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "wrote %s and %s\n", filepath.Join(*outDir, name+".md"), filepath.Join(*outDir, name+".svg"))
}

// wakeupsOnce returns a lookup of the wake-up figures that runs the child process on first use.
// If the child fails, every figure is n/a and the error goes to standard error.
func wakeupsOnce(idleQueues int) func(impl string) wakeupFigures {
	var figures map[string]wakeupFigures
	return func(impl string) wakeupFigures {
		if figures == nil {
			var err error
			if figures, err = measureWakeups(idleQueues); err != nil {
				fmt.Fprintln(os.Stderr, "compare:", err)
				figures = map[string]wakeupFigures{}
			}
		}
		f, ok := figures[impl]
		if !ok {
			f = wakeupFigures{Many: math.NaN(), PerKind: make([]float64, len(bench.Kinds))}
			for i := range f.PerKind {
				f.PerKind[i] = math.NaN()
			}
		}
		return f
	}
}

// write puts the report and the chart into dir, as name.md and name.svg.
func write(dir, name, report, chart string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(report), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".svg"), []byte(chart), 0o644)
}
