package bench

import (
	"math"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

func TestFootprintCountsTheQueuesGoroutines(t *testing.T) {
	// What client-go's and controller-runtime's sources start per queue.
	cases := []struct {
		impl Impl
		kind Kind
		want float64
	}{
		{ClientGo(), Plain, 0},
		{ClientGo(), Delaying, 1},
		{ClientGo(), RateLimiting, 1},
		{ClientGo(), Named, 2},
		{ControllerRuntime(), RateLimiting, 4},
		{ControllerRuntime(), Named, 5},
	}
	for _, c := range cases {
		t.Run(c.impl.Name+" "+c.kind.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := MeasureFootprint(c.impl, c.kind, 20)
				if f.GoroutinesPerQueue != c.want {
					t.Errorf("GoroutinesPerQueue = %v, want %v", f.GoroutinesPerQueue, c.want)
				}
			})
		})
	}
}

// heavy is a fake queue that keeps 64 KiB.
type heavy struct{ kept []byte }

func (*heavy) ShutDown() {}

func TestFootprintWeighsWhatTheQueuesKeep(t *testing.T) {
	f := MeasureFootprint(fake(func() ShutDowner { return &heavy{kept: make([]byte, 64<<10)} }), Plain, 50)
	// 64 KiB each, plus the heavy struct and its share of the slice of queues, give or take
	// what the rest of the process frees or allocates meanwhile.
	if f.BytesPerQueue < 60<<10 || f.BytesPerQueue > 68<<10 {
		t.Errorf("BytesPerQueue = %v for queues that keep 64 KiB each, want 60 to 68 KiB", f.BytesPerQueue)
	}
	if f.GoroutinesPerQueue != 0 {
		t.Errorf("GoroutinesPerQueue = %v for queues that start none", f.GoroutinesPerQueue)
	}
}

// lingering is a fake queue with one goroutine that ShutDown only tells to stop: the
// goroutine takes a millisecond more, as client-go's waiting loop takes a moment.
type lingering struct{ stop chan struct{} }

func newLingering(join bool) ShutDowner {
	q := newLooping()
	go func() {
		<-q.stop
		if !join {
			time.Sleep(time.Millisecond)
		}
		close(q.done)
	}()
	if join {
		return q // ShutDown waits for done
	}
	return &lingering{stop: q.stop}
}

func (q *lingering) ShutDown() { close(q.stop) }

func TestAfterShutDownCountsWhatIsLeft(t *testing.T) {
	cases := []struct {
		name string
		join bool
		want AfterShutDown
	}{
		{"a ShutDown that waits for its goroutine leaves none", true, AfterShutDown{Live: 1, Left: 0, QueuesWithLeft: 0}},
		{"a ShutDown that does not wait leaves it", false, AfterShutDown{Live: 1, Left: 1, QueuesWithLeft: 5}},
	}
	// A goroutine of the process that starts or ends between the two reads of the count around
	// ShutDown (a finalizer running, say) shifts one queue's figure: a measurement is retried
	// twice before it counts as wrong.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var got []AfterShutDown
				for range 3 {
					got = append(got, MeasureAfterShutDown(fake(func() ShutDowner { return newLingering(c.join) }), Delaying, 5))
					if got[len(got)-1] == c.want {
						return
					}
				}
				t.Errorf("MeasureAfterShutDown = %+v, three times; want %+v", got, c.want)
			})
		})
	}
}

func TestAfterShutDownSeesThePeersGoroutines(t *testing.T) {
	for _, impl := range []Impl{ControllerRuntime(), ClientGo()} {
		got := MeasureAfterShutDown(impl, Delaying, 20)
		want := map[string]float64{"controller-runtime": 4, "client-go": 1}[impl.Name]
		if got.Live != want {
			t.Errorf("%s: Live = %v goroutines per delaying queue, want %v", impl.Name, got.Live, want)
		}
		// Each queue that left goroutines left between 1 and Live of them.
		if n := got.Left * 20; n < float64(got.QueuesWithLeft) || n > float64(got.QueuesWithLeft)*got.Live {
			t.Errorf("%s: Left = %v per queue, but %d of 20 queues left some", impl.Name, got.Left, got.QueuesWithLeft)
		}
	}
}

// retaining is client-go's queue with an Add that keeps a KiB per call and allocates it.
type retaining struct {
	Queue
	kept [][]byte
}

func (q *retaining) Add(key int) {
	q.kept = append(q.kept, make([]byte, 1024))
	q.Queue.Add(key)
}

func retainingClientGo() Impl {
	impl := ClientGo()
	newQueue := impl.New
	impl.New = func(r Retry) Queue { return &retaining{Queue: newQueue(r)} }
	return impl
}

func TestBytesPerItemSeesWhatTheQueueKeeps(t *testing.T) {
	plain, retained := BytesPerItem(ClientGo(), 20_000), BytesPerItem(retainingClientGo(), 20_000)
	// Each Add keeps 1024 bytes more, plus a slice header's share in kept (24 B, doubled
	// capacity at worst), give or take what the rest of the process frees or allocates.
	if extra := retained - plain; extra < 1024-64 || extra > 1024+2*24+64 {
		t.Errorf("BytesPerItem grew by %v bytes per item with 1024 more kept, want 960 to 1136", extra)
	}
}

func TestAllocsPerCycleSeesEveryAllocation(t *testing.T) {
	plain, retained := AllocsPerCycle(ClientGo(), 5_000), AllocsPerCycle(retainingClientGo(), 5_000)
	// One more allocation per Add, plus the rare growth of kept.
	if extra := retained - plain; extra < 1 || extra > 1.05 {
		t.Errorf("AllocsPerCycle grew by %v with one more allocation per Add, want 1 to 1.05", extra)
	}
}

// A queue measured before, and held until a cleanup has run (as actorqueue's queues are), is
// garbage only after that: freed during the next measurement, it made that one low, or below
// zero. BytesPerItem's baseline waits for it.
func TestBytesPerItemWaitsForWhatACleanupHolds(t *testing.T) {
	clean := BytesPerItem(ClientGo(), 20_000)
	owner, held := new([64]byte), make([]byte, 16<<20)
	runtime.AddCleanup(owner, func(b []byte) { runtime.KeepAlive(b) }, held)
	owner, held = nil, nil
	if got := BytesPerItem(ClientGo(), 20_000); math.Abs(got-clean) > 8 {
		t.Errorf("BytesPerItem = %.1f after 16 MiB held by a cleanup became garbage, %.1f without: want the same", got, clean)
	}
}

// dropping is client-go's queue, whose Len gives 16 MiB to a goroutine that lets go of it 200 µs
// later, as actorqueue's owner drops the segments of a burst once it goes to sleep.
type dropping struct{ Queue }

func (q dropping) Len() int {
	burst := make([]byte, 16<<20)
	go func() {
		time.Sleep(200 * time.Microsecond)
		runtime.KeepAlive(burst)
	}()
	return q.Queue.Len()
}

// What a queue lets go of a moment after the adds is not counted as what it keeps.
func TestBytesPerItemCountsTheQueueAtRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		impl := ClientGo()
		newQueue := impl.New
		impl.New = func(r Retry) Queue { return dropping{newQueue(r)} }
		plain, dropped := BytesPerItem(ClientGo(), 20_000), BytesPerItem(impl, 20_000)
		if math.Abs(dropped-plain) > 8 {
			t.Errorf("BytesPerItem = %.1f for a queue that drops 16 MiB after its Len, %.1f for one that does not: want the same", dropped, plain)
		}
	})
}
