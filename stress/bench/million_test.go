package bench

import (
	"runtime"
	"testing"
)

// bulging is a queue on string keys that holds 32 MiB from its first Add to its thousandth,
// a collection included: a transient peak, gone once the adds are over.
type bulging struct {
	Keyed[string]
	adds  int
	bulge []byte
}

func (q *bulging) Add(key string) {
	q.adds++
	switch q.adds {
	case 1:
		q.bulge = make([]byte, 32<<20)
	case 1000:
		runtime.GC() // a collection marks the bulge live
		q.bulge = nil
	}
	q.Keyed.Add(key)
}

// hoarding is a queue on string keys that keeps 1 KiB per Get for good.
type hoarding struct {
	Keyed[string]
	kept [][]byte
}

func (q *hoarding) Get() (string, bool) {
	q.kept = append(q.kept, make([]byte, 1024))
	return q.Keyed.Get()
}

func withStringKeyed(impl Impl, wrap func(Keyed[string]) Keyed[string]) Impl {
	newQueue := impl.NewStringKeyed
	impl.NewStringKeyed = func(r Retry) Keyed[string] { return wrap(newQueue(r)) }
	return impl
}

func TestQueueHeapSeesThePeakAndWhatIsKept(t *testing.T) {
	keys := ObjectKeys(20_000)
	plain := QueueHeap(ClientGo(), keys, 1)
	if plain.Queued <= 0 || plain.Peak < plain.Queued || plain.PeakLive < plain.Queued || plain.Fill <= 0 {
		t.Fatalf("client-go: %+v: want a queue that takes memory, at its peak at least what it holds at rest", plain)
	}

	bulged := QueueHeap(withStringKeyed(ClientGo(), func(q Keyed[string]) Keyed[string] { return &bulging{Keyed: q} }), keys, 1)
	if bulged.Peak < 32<<20 || bulged.PeakLive < 32<<20 {
		t.Errorf("a queue that held 32 MiB during the adds: Peak %d, PeakLive %d, want both at least 32 MiB", bulged.Peak, bulged.PeakLive)
	}
	if d := bulged.Queued - plain.Queued; d > 1<<20 || d < -1<<20 {
		t.Errorf("Queued = %d for a queue whose 32 MiB are gone, %d for one that never had them: want about the same", bulged.Queued, plain.Queued)
	}

	// The hoard: 20,000 slices of 1 KiB and their headers, in a slice grown by doubling (the
	// race detector's heap accounts about 2% less of it).
	hoarded := QueueHeap(withStringKeyed(ClientGo(), func(q Keyed[string]) Keyed[string] { return &hoarding{Keyed: q} }), keys, 1)
	if d := hoarded.Drained - plain.Drained; d < 19_000<<10 || d > 22_000<<10 {
		t.Errorf("Drained = %d for a queue that keeps 1 KiB per Get, %d for one that does not: want about 20,000 KiB more", hoarded.Drained, plain.Drained)
	}
}
