package bench

import (
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// keyEvent is one call a keyRecorder saw.
type keyEvent struct {
	op   string // "Add", "AddRateLimited", "AddWithOpts", "Forget", "Get", "Done"
	key  string
	opts priorityqueue.AddOpts // of AddWithOpts
	at   time.Time
}

// keyRecorder wraps a queue on string keys, with or without priorities, and logs in one order
// the start of every call that takes an item and the return of every Get.
type keyRecorder struct {
	Keyed[string]
	pq     Prioritized // nil for a queue without priorities
	mu     sync.Mutex
	events []keyEvent
}

// recordingKeys returns impl with its string-keyed queues (NewStringKeyed, NewNamed,
// NewPrioritized) wrapped in keyRecorders, and the recorders made.
func recordingKeys(impl Impl) (Impl, func() []*keyRecorder) {
	var mu sync.Mutex
	var made []*keyRecorder
	keep := func(rec *keyRecorder) *keyRecorder {
		mu.Lock()
		made = append(made, rec)
		mu.Unlock()
		return rec
	}
	newStringKeyed, newNamed, newPrioritized := impl.NewStringKeyed, impl.NewNamed, impl.NewPrioritized
	impl.NewStringKeyed = func(r Retry) Keyed[string] { return keep(&keyRecorder{Keyed: newStringKeyed(r)}) }
	impl.NewNamed = func(name string, r Retry, sink Sink) Keyed[string] {
		return keep(&keyRecorder{Keyed: newNamed(name, r, sink)})
	}
	if newPrioritized != nil {
		impl.NewPrioritized = func(name string, r Retry) Prioritized {
			pq := newPrioritized(name, r)
			return keep(&keyRecorder{Keyed: pq, pq: pq})
		}
	}
	return impl, func() []*keyRecorder {
		mu.Lock()
		defer mu.Unlock()
		return made
	}
}

func (r *keyRecorder) log(e keyEvent) {
	e.at = time.Now()
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *keyRecorder) Add(key string) { r.log(keyEvent{op: "Add", key: key}); r.Keyed.Add(key) }

func (r *keyRecorder) AddRateLimited(key string) {
	r.log(keyEvent{op: "AddRateLimited", key: key})
	r.Keyed.AddRateLimited(key)
}

func (r *keyRecorder) Forget(key string) {
	r.log(keyEvent{op: "Forget", key: key})
	r.Keyed.Forget(key)
}

func (r *keyRecorder) Done(key string) { r.log(keyEvent{op: "Done", key: key}); r.Keyed.Done(key) }

func (r *keyRecorder) Get() (string, bool) {
	key, shutdown := r.Keyed.Get()
	if !shutdown {
		r.log(keyEvent{op: "Get", key: key})
	}
	return key, shutdown
}

func (r *keyRecorder) AddWithOpts(o priorityqueue.AddOpts, items ...string) {
	for _, key := range items {
		r.log(keyEvent{op: "AddWithOpts", key: key, opts: o})
	}
	r.pq.AddWithOpts(o, items...)
}

func (r *keyRecorder) GetWithPriority() (string, int, bool) {
	key, priority, shutdown := r.pq.GetWithPriority()
	if !shutdown {
		r.log(keyEvent{op: "Get", key: key})
	}
	return key, priority, shutdown
}

// count returns how many events satisfy is.
func (r *keyRecorder) count(is func(keyEvent) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if is(e) {
			n++
		}
	}
	return n
}

// unserved returns the events for which is holds that no later Get of their key followed:
// adds that the queue never handed out.
func (r *keyRecorder) unserved(is func(keyEvent) bool) []keyEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	lastGet := map[string]int{}
	for i, e := range r.events {
		if e.op == "Get" {
			lastGet[e.key] = i
		}
	}
	var out []keyEvent
	for i, e := range r.events {
		if get, ok := lastGet[e.key]; is(e) && (!ok || get < i) {
			out = append(out, e)
		}
	}
	return out
}
