package bench

import (
	"strconv"
	"strings"
	"time"
)

// ObjectKeys returns the string keys of the int keys 0 to n-1: key k is
// "namespace-<k mod 50>/object-<k>", the form of the keys that client-go's informers hand
// controllers.
func ObjectKeys(n int) []string {
	keys := make([]string, n)
	for k := range keys {
		keys[k] = "namespace-" + strconv.Itoa(k%50) + "/object-" + strconv.Itoa(k)
	}
	return keys
}

// WithStringKeys returns impl with its workload queues on string keys: int key k becomes
// keys[k] (see ObjectKeys), and the workloads run unchanged. The keys are built before the run,
// as an informer's are, and Done is passed the very string Get returned, as a worker passes it;
// only Get's turning the string back into k (a few nanoseconds, in the worker) costs more than
// an int key would, and every implementation pays it. Building a key anew for every call would
// cost the same CPU everywhere, but not the same throughput: actorqueue's producers and workers
// would build theirs on the processor its owner goroutine leaves free, while client-go's take
// the time from their own.
func WithStringKeys(impl Impl, keys []string) Impl {
	keyed := impl
	keyed.New = func(r Retry) Queue { return stringKeyed{impl.NewStringKeyed(r), keys} }
	return keyed
}

// keyOf returns the int key k whose string is s.
func keyOf(s string) int {
	k, err := strconv.Atoi(s[strings.LastIndexByte(s, '-')+1:])
	if err != nil {
		panic("bench: not an object key: " + s)
	}
	return k
}

// stringKeyed is a Queue whose queue holds the keys' strings.
type stringKeyed struct {
	q    Keyed[string]
	keys []string
}

func (s stringKeyed) Add(k int)                       { s.q.Add(s.keys[k]) }
func (s stringKeyed) AddAfter(k int, d time.Duration) { s.q.AddAfter(s.keys[k], d) }
func (s stringKeyed) AddRateLimited(k int)            { s.q.AddRateLimited(s.keys[k]) }
func (s stringKeyed) Forget(k int)                    { s.q.Forget(s.keys[k]) }
func (s stringKeyed) Done(k int)                      { s.q.Done(s.keys[k]) }
func (s stringKeyed) Len() int                        { return s.q.Len() }
func (s stringKeyed) ShuttingDown() bool              { return s.q.ShuttingDown() }
func (s stringKeyed) ShutDown()                       { s.q.ShutDown() }
func (s stringKeyed) Get() (k int, shutdown bool) {
	item, shutdown := s.q.Get()
	if shutdown {
		return 0, true
	}
	return keyOf(item), false
}
