package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/actorqueue/workqueue/stress/bench"
)

// results holds every figure of a run.
type results struct {
	impls []string
	rows  []row
	// figures[row id][i] holds the figure of impls[i] in each round, in order.
	figures map[string][][]float64
}

// run runs the experiments, interleaving the implementations (A B C A B C ...): one warm-up
// round whose figures are dropped, then rounds measured rounds, except that a deterministic
// experiment runs once. It writes a line per round to progress.
func run(experiments []experiment, impls []bench.Impl, rounds int, progress io.Writer) results {
	res := results{figures: map[string][][]float64{}}
	for _, impl := range impls {
		res.impls = append(res.impls, impl.Name)
	}
	start := time.Now()
	for n, exp := range experiments {
		res.rows = append(res.rows, exp.rows...)
		for _, r := range exp.rows {
			res.figures[r.id] = make([][]float64, len(impls))
		}
		measured := rounds
		if exp.once {
			measured = 1
		} else {
			fmt.Fprintf(progress, "[%6.1fs] %d/%d %s: warm-up\n", time.Since(start).Seconds(), n+1, len(experiments), exp.name)
			for _, impl := range impls {
				measure(exp, impl)
			}
		}
		for round := 1; round <= measured; round++ {
			line := make([]string, len(impls))
			for i, impl := range impls {
				figures := measure(exp, impl)
				for j, r := range exp.rows {
					res.figures[r.id][i] = append(res.figures[r.id][i], figures[j])
				}
				line[i] = impl.Name + " " + formatValue(figures[0]) + " " + exp.rows[0].unit
			}
			fmt.Fprintf(progress, "[%6.1fs] %d/%d %s: round %d/%d: %s\n", time.Since(start).Seconds(), n+1, len(experiments),
				exp.name, round, measured, strings.Join(line, " · "))
		}
	}
	return res
}

// measure runs exp once for impl, after a garbage collection so that no implementation pays
// for the garbage of the one before.
func measure(exp experiment, impl bench.Impl) []float64 {
	runtime.GC()
	figures := exp.measure(impl)
	if len(figures) != len(exp.rows) {
		panic(fmt.Sprintf("experiment %q measured %d figures for %d rows", exp.name, len(figures), len(exp.rows)))
	}
	return figures
}
