package e2e

import (
	"fmt"
	"sync"
	"testing"
)

// The figures the scenarios measure, printed as one table after the tests.
var figures struct {
	sync.Mutex
	rows [][3]string
}

// figure records a measured value of the running scenario, and logs it.
func figure(t *testing.T, name, format string, args ...any) {
	t.Helper()
	value := fmt.Sprintf(format, args...)
	t.Logf("figure: %s: %s", name, value)
	figures.Lock()
	defer figures.Unlock()
	figures.rows = append(figures.rows, [3]string{t.Name(), name, value})
}

func printFigures() {
	figures.Lock()
	defer figures.Unlock()
	if len(figures.rows) == 0 {
		return
	}
	fmt.Println("e2e figures:")
	for _, r := range figures.rows {
		fmt.Printf("  %-40s %-34s %s\n", r[0], r[1], r[2])
	}
}
