package main

import (
	"math"
	"testing"
	"testing/synctest"

	"github.com/actorqueue/workqueue/stress/bench"
)

// Rows D and M on each implementation, in a synctest bubble, where only the waits take time:
// row M's thousand workers take 2,000 keys in two rounds of their 200 µs wait, so 2,000 items
// in 400 µs exactly; rows D run to the end with every figure measured, and retries that wait
// 5 ms at least.
func TestShapesMeasure(t *testing.T) {
	m := quick
	m.dupObjects, m.dupAdds, m.manyKeys = 300, 3_600, 2*manyWorkers
	bench.WorkFor(shortWork) // time Spend outside the bubble
	experiments := shapePlan(m)
	for _, impl := range bench.Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				for _, exp := range experiments {
					figures := exp.measure(impl)
					for i, f := range figures {
						if math.IsNaN(f) || f < 0 {
							t.Errorf("%s: row %s measured %v", exp.name, exp.rows[i].id, f)
						}
					}
					switch exp.rows[0].id {
					case "Ma":
						if figures[0] != 2*manyWorkers/(2*manyWait.Seconds()) {
							t.Errorf("row Ma: %v items/s, want 2,000 items in 400 µs", figures[0])
						}
					case "D1a", "D2a":
						if figures[0] < 5 {
							t.Errorf("row %s: %v ms, want at least one retry's 5 ms", exp.rows[0].id, figures[0])
						}
					}
				}
			})
		})
	}
}
