package extensions

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/actorqueue/workqueue/stress/internal/knob"
)

// Environment variables that size the suite (see stress/README.md).
const (
	seedVariable   = "ACTORQUEUE_SEED"
	roundsVariable = "ACTORQUEUE_EXTENSIONS_ROUNDS"
)

// maxKept is how many broken invariants a round keeps to print.
const maxKept = 10

// findings collects the broken invariants of a round, from any goroutine. Each starts with a
// tag in brackets, such as [lost-add], that names the invariant.
type findings struct {
	mu    sync.Mutex
	kept  []string
	total int
}

// add records a broken invariant.
func (f *findings) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total++
	if len(f.kept) < maxKept {
		f.kept = append(f.kept, fmt.Sprintf(format, args...))
	}
}

// broken reports whether an invariant was broken.
func (f *findings) broken() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total > 0
}

func (f *findings) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("%d broken invariants (at most %d shown):\n%s", f.total, maxKept, strings.Join(f.kept, "\n"))
}

// playRounds plays the rounds of the test named test: as many as ACTORQUEUE_EXTENSIONS_ROUNDS
// says (def by default), round i with the seed ACTORQUEUE_SEED + i, so that consecutive
// rounds cycle through the variants a round picks by its seed. play runs one
// round and returns what it was, for the failure message, with what it found. The test fails
// at the first round that broke an invariant, saying how to play that round alone.
func playRounds(t *testing.T, test string, def int, play func(t *testing.T, seed uint64) (string, *findings)) {
	t.Helper()
	n := knob.Int(t, roundsVariable, def)
	base := knob.Seed(t, seedVariable)
	for i := range uint64(n) {
		seed := base + i
		what, found := play(t, seed)
		if found.broken() {
			t.Fatalf("round %d (%s, seed %d): %s\nplay it alone, in stress/: %s=%d %s=1 go test -race -run '^%s$' ./extensions",
				i, what, seed, found, seedVariable, seed, roundsVariable, test)
		}
	}
}
