package main

import (
	"fmt"
	"time"

	"github.com/actorqueue/workqueue/sharding"
)

// printHandovers is the replica's sharding.Metrics: it prints a line for each bucket the
// replica gives up, which the orchestration shows prefixed with the replica's name, and
// ignores the other measurements.
type printHandovers struct{}

func (printHandovers) BucketsHeld(int) {}

func (printHandovers) KeyDropped() {}

// HandedOver prints the bucket, why it was given up ("released": asked for by another replica,
// or the replica is leaving) and how long its reconciles in progress took to finish.
func (printHandovers) HandedOver(h sharding.Handover) {
	line := fmt.Sprintf("gave bucket %d up: %s, its reconciles drained in %v", h.Bucket, h.Cause, h.Drain.Round(time.Millisecond))
	if h.Overran > 0 {
		line += fmt.Sprintf(", %d still running at the deadline", h.Overran)
	}
	fmt.Println(line)
}
