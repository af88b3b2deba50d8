package linearizability

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestModelJudges: the model accepts what the queue may do and rejects what it must not, on
// small hand-written histories (calls one after the other unless their times overlap).
func TestModelJudges(t *testing.T) {
	add := func(item byte) input { return input{op: opAdd, item: item} }
	got := func(item byte) output { return output{item: item} }
	length := func(n int) output { return output{n: n} }
	for _, c := range []struct {
		name  string
		ops   []porcupine.Operation
		legal bool
	}{
		{"an item that was never added is handed out", sequential(
			add('a'), output{}, input{op: opGet}, got('b')), false},
		{"a Get overlapping the Add hands its item out", []porcupine.Operation{
			{Input: add('a'), Output: output{}, Call: 1, Return: 4},
			{ClientId: 1, Input: input{op: opGet}, Output: got('a'), Call: 2, Return: 3}}, true},
		{"an item added twice waits once", sequential(
			add('a'), output{}, add('a'), output{}, input{op: opLen}, length(2)), false},
		{"an add during processing is kept for after Done", sequential(
			add('a'), output{}, input{op: opGet}, got('a'), add('a'), output{},
			input{op: opDone, item: 'a'}, output{}, input{op: opLen}, length(0)), false},
		{"Done of a waiting item does nothing", sequential(
			add('a'), output{}, input{op: opDone, item: 'a'}, output{}, input{op: opLen}, length(1)), true},
		{"items are handed out first in, first out", sequential(
			add('a'), output{}, add('b'), output{}, input{op: opGet}, got('b')), false},
		{"AddRateLimited counts after shutdown, adds nothing", sequential(
			input{op: opShutDown}, output{}, input{op: opAddRateLimited, item: 'c'}, output{},
			input{op: opNumRequeues, item: 'c'}, length(1), input{op: opLen}, length(0)), true},
		{"Get after shutdown still hands out what waits", sequential(
			add('a'), output{}, input{op: opShutDown}, output{}, input{op: opGet}, output{shutdown: true}), false},
	} {
		ok := porcupine.CheckOperations(model, c.ops)
		if ok != c.legal {
			t.Errorf("%s: porcupine says linearizable = %v, want %v", c.name, ok, c.legal)
		}
	}
}

// sequential returns the operations of alternating inputs and outputs, one after the other.
func sequential(pairs ...any) []porcupine.Operation {
	var ops []porcupine.Operation
	for i := 0; i < len(pairs); i += 2 {
		t := int64(len(ops) * 2)
		ops = append(ops, porcupine.Operation{Input: pairs[i], Output: pairs[i+1], Call: t, Return: t + 1})
	}
	return ops
}
