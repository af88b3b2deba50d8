package limiter

import (
	"fmt"
	"reflect"
	"sync"
	"time"
)

// Owner is where the state of the limiters it has adopted lives: a queue's owner goroutine. See
// [Adopt].
type Owner interface {
	// Do runs f there, as one step with every other use of that state, and returns once f has
	// returned, raising f's panic if it panicked.
	Do(f func())
}

// guard makes a limiter's state safe for use by any goroutine, as client-go's limiters are.
// Until an [Owner] adopts the limiter, each call holds the guard's lock. Once adopted, the state
// belongs to the owner, which calls the limiter without the guard (see [Adopted]); every other
// call is handed to the owner's Do. Its zero value is a guard with no owner.
type guard struct {
	mu    sync.Mutex
	owner Owner // set once, under mu; then never changed
}

// enter takes the guard's lock and returns nil; or, once an owner has adopted the limiter,
// returns the owner, without the lock. A caller that gets nil calls leave when done; one that
// gets an owner hands the call to its Do.
func (g *guard) enter() Owner {
	g.mu.Lock()
	o := g.owner
	if o != nil {
		g.mu.Unlock()
	}
	return o
}

// leave releases the lock that enter took.
func (g *guard) leave() { g.mu.Unlock() }

// adopt gives the state to o, and reports whether o owns it now: false if another owner
// adopted it first. Owners are compared with ==, so they must be comparable (see Adopt).
func (g *guard) adopt(o Owner) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.owner == nil {
		g.owner = o
		return true
	}
	return g.owner == o
}

// core is what every limiter of this package has under its exported methods: the calls
// themselves, without the guard, and adoption of the state the limiter and its parts hold.
type core[T comparable] interface {
	RateLimiter[T]
	whenAt(item T, now time.Time) time.Duration
	forget(item T)
	numRequeues(item T) int
	adopt(o Owner) bool
	safe() bool
}

// Adopt gives the state of l to o, so that o may call l without locks through the returned
// [Adopted], and every call made to l elsewhere runs through o's Do. It reports false, and
// adopts nothing more, if l is not safe (see [Safe]) or if a part of l has an owner other than
// o already; o must then call l as anyone else does, through its exported methods. Adopting
// again a limiter that o owns already succeeds.
//
// A queue adopts its limiter when it is built, before its owner goroutine first calls it. It
// panics if o is nil or of a type that cannot be compared with ==.
func Adopt[T comparable](l RateLimiter[T], o Owner) (Adopted[T], bool) {
	if o == nil || !reflect.TypeOf(o).Comparable() {
		panic(fmt.Sprintf("workqueue: limiter.Adopt: owner %T is nil or cannot be compared", o))
	}
	c, ok := l.(core[T])
	if !ok || !c.safe() || !c.adopt(o) {
		return Adopted[T]{}, false
	}
	return Adopted[T]{c}, true
}

// Adopted is a limiter as its [Owner] calls it: without locks, so only where Owner.Do runs its
// functions. Its zero value must not be used.
type Adopted[T comparable] struct{ c core[T] }

// WhenAt is the limiter's WhenAt.
func (a Adopted[T]) WhenAt(item T, now time.Time) time.Duration { return a.c.whenAt(item, now) }

// Forget is the limiter's Forget.
func (a Adopted[T]) Forget(item T) { a.c.forget(item) }

// NumRequeues is the limiter's NumRequeues.
func (a Adopted[T]) NumRequeues(item T) int { return a.c.numRequeues(item) }

// Every limiter of this package is a core, and so can be adopted.
var (
	_ core[int] = (*Exponential[int])(nil)
	_ core[int] = (*FastSlow[int])(nil)
	_ core[int] = (*Bucket[int])(nil)
	_ core[int] = (*ItemBucket[int])(nil)
	_ core[int] = (*MaxOf[int])(nil)
	_ core[int] = MaxWait[int]{}
)

// when, forget and count are the exported WhenAt, Forget and NumRequeues of a limiter c with
// state, guarded by g: under g's lock until c is adopted, then through its owner. The lock path
// makes no closure, so that it does not allocate.

func when[T comparable](g *guard, c core[T], item T, now time.Time) time.Duration {
	if o := g.enter(); o != nil {
		var wait time.Duration
		o.Do(func() { wait = c.whenAt(item, now) })
		return wait
	}
	defer g.leave()
	return c.whenAt(item, now)
}

func forget[T comparable](g *guard, c core[T], item T) {
	if o := g.enter(); o != nil {
		o.Do(func() { c.forget(item) })
		return
	}
	defer g.leave()
	c.forget(item)
}

func count[T comparable](g *guard, c core[T], item T) int {
	if o := g.enter(); o != nil {
		var n int
		o.Do(func() { n = c.numRequeues(item) })
		return n
	}
	defer g.leave()
	return c.numRequeues(item)
}

// tracked is the exported Tracked of a limiter l that remembers failures, guarded by g.
func tracked[T comparable](g *guard, l interface{ memory() failures[T] }) int {
	if o := g.enter(); o != nil {
		var n int
		o.Do(func() { n = l.memory().len() })
		return n
	}
	defer g.leave()
	return l.memory().len()
}
