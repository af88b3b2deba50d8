package bench

import (
	"strconv"
	"strings"
	"time"
)

// WithStringKeys returns impl with its workload queues on string keys: key k becomes
// ObjectKey(k), "namespace-<k mod 50>/object-<k>", the form of the keys that client-go's
// informers hand controllers. The workloads run unchanged: each call turns the int key into its
// string, building it as an event handler builds its key, and Get turns the string back.
// Both conversions cost every implementation the same.
func WithStringKeys(impl Impl) Impl {
	named := impl
	named.New = func(r Retry) Queue { return stringKeyed{impl.NewNamed(r)} }
	return named
}

// ObjectKey returns the string key of int key k.
func ObjectKey(k int) string {
	return "namespace-" + strconv.Itoa(k%50) + "/object-" + strconv.Itoa(k)
}

// keyOf returns the int key whose ObjectKey is s.
func keyOf(s string) int {
	k, err := strconv.Atoi(s[strings.LastIndexByte(s, '-')+1:])
	if err != nil {
		panic("bench: not an object key: " + s)
	}
	return k
}

// stringKeyed is a Queue whose queue holds the keys' strings.
type stringKeyed struct{ q Keyed[string] }

func (s stringKeyed) Add(k int)                       { s.q.Add(ObjectKey(k)) }
func (s stringKeyed) AddAfter(k int, d time.Duration) { s.q.AddAfter(ObjectKey(k), d) }
func (s stringKeyed) AddRateLimited(k int)            { s.q.AddRateLimited(ObjectKey(k)) }
func (s stringKeyed) Forget(k int)                    { s.q.Forget(ObjectKey(k)) }
func (s stringKeyed) Done(k int)                      { s.q.Done(ObjectKey(k)) }
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
