package bench

import (
	"sync"
	"time"
)

// event is one call a recorder saw.
type event struct {
	op  string // "Add", "AddAfter", "AddRateLimited", "Forget", "Get", "Done"
	key int
	at  time.Time
}

// recorder wraps a Queue and logs, in one order, the start of every call that takes an item
// and the return of every Get, so that tests can check what a workload did.
type recorder struct {
	Queue
	mu     sync.Mutex
	events []event
	len    int // Len calls
}

// recording returns impl with its queues wrapped in recorders, and the recorders made.
func recording(impl Impl) (Impl, func() []*recorder) {
	var mu sync.Mutex
	var made []*recorder
	impl.New = func(newQueue func(Retry) Queue) func(Retry) Queue {
		return func(r Retry) Queue {
			rec := &recorder{Queue: newQueue(r)}
			mu.Lock()
			made = append(made, rec)
			mu.Unlock()
			return rec
		}
	}(impl.New)
	return impl, func() []*recorder {
		mu.Lock()
		defer mu.Unlock()
		return made
	}
}

func (r *recorder) log(op string, key int) {
	r.mu.Lock()
	r.events = append(r.events, event{op: op, key: key, at: time.Now()})
	r.mu.Unlock()
}

func (r *recorder) Add(key int) { r.log("Add", key); r.Queue.Add(key) }

func (r *recorder) AddAfter(key int, d time.Duration) {
	r.log("AddAfter", key)
	r.Queue.AddAfter(key, d)
}

func (r *recorder) AddRateLimited(key int) { r.log("AddRateLimited", key); r.Queue.AddRateLimited(key) }

func (r *recorder) Forget(key int) { r.log("Forget", key); r.Queue.Forget(key) }

func (r *recorder) Done(key int) { r.log("Done", key); r.Queue.Done(key) }

func (r *recorder) Get() (int, bool) {
	key, shutdown := r.Queue.Get()
	if !shutdown {
		r.log("Get", key)
	}
	return key, shutdown
}

func (r *recorder) Len() int {
	r.mu.Lock()
	r.len++
	r.mu.Unlock()
	return r.Queue.Len()
}

// counts returns how many times each key went through op.
func (r *recorder) counts(op string) map[int]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	counts := map[int]int{}
	for _, e := range r.events {
		if e.op == op {
			counts[e.key]++
		}
	}
	return counts
}
