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
// call is handed to the owner's Do. Once the owner releases it, calls take the lock again. Its
// zero value is a guard with no owner.
type guard struct {
	mu    sync.Mutex
	owner Owner // nil while the guard's lock guards the state
}

// enter takes the guard's lock and returns nil; or, while an owner has the limiter, returns the
// owner, without the lock. A caller that gets nil calls leave when done; one that gets an owner
// hands the call to it with through.
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

// through runs f as one of o's steps, if o still owns the state when that step comes, and
// reports whether it did. o releases the state only between its steps (see Release), so f,
// once started, runs as the owner's own calls do.
func (g *guard) through(o Owner, f func()) (ran bool) {
	o.Do(func() {
		g.mu.Lock()
		ran = g.owner == o
		g.mu.Unlock()
		if ran {
			f()
		}
	})
	return ran
}

// adopt gives the state to o, and reports whether o owns it now: false if another owner has
// it.
func (g *guard) adopt(o Owner) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.owner == nil {
		g.owner = o
		return true
	}
	return g.owner == o
}

// release takes the state back from o, if o has it.
func (g *guard) release(o Owner) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.owner == o {
		g.owner = nil
	}
}

// core is what every limiter of this package has under its exported methods: the calls
// themselves, without the guard, and adoption of the state the limiter and its parts hold.
// A type that embeds one of our limiters has these methods too, promoted; ask [ours] whether a
// limiter is one of this package's before calling them.
type core[T comparable] interface {
	RateLimiter[T]
	Timed[T]
	whenAt(item T, now time.Time) time.Duration
	forget(item T)
	numRequeues(item T) int
	adopt(o Owner) bool
	release(o Owner)
	safe() bool
}

// Adopt gives the state of l to o, so that o may call l without locks through the returned
// [Adopted], and every call made to l elsewhere runs through o's Do. It reports false, and
// adopts nothing more, if l is not safe (see [Safe]) or if a part of l has an owner other than
// o already; o must then call l as anyone else does, through its exported methods. Adopting
// again a limiter that o owns already succeeds.
//
// A queue adopts its limiter when it is built, before its owner goroutine first calls it, and
// releases it when it shuts down (see [Release]). Owners are told apart by identity, so o must
// be a non-nil pointer to a value of non-zero size (pointers to zero-size values may be
// equal): Adopt panics otherwise.
func Adopt[T comparable](l RateLimiter[T], o Owner) (Adopted[T], bool) {
	if v := reflect.ValueOf(o); !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() || v.Type().Elem().Size() == 0 {
		panic(fmt.Sprintf("workqueue: limiter.Adopt: owner %T is not a non-nil pointer to a value of some size", o))
	}
	if IsNil(l) {
		return Adopted[T]{}, false
	}
	c, ok := ours(l)
	if !ok || !c.safe() || !c.adopt(o) {
		return Adopted[T]{}, false
	}
	return Adopted[T]{c}, true
}

// Release gives back the state of the parts of l that o owns: from then on, calls to them take
// their lock again, and another owner may adopt them. o calls it between its steps, with none
// of its calls to l under way, and calls l only through its exported methods afterwards; a
// queue releases its limiter as it shuts down, so that the limiter keeps no reference to it.
func Release[T comparable](l RateLimiter[T], o Owner) {
	if Safe(l) {
		c, _ := ours(l)
		c.release(o)
	}
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

// Every limiter of this package is a core, and so can be adopted, once ours lists its type: a
// type it does not list is called as a user's limiter is, correctly but without adoption.
var (
	_ core[int] = (*Exponential[int])(nil)
	_ core[int] = (*FastSlow[int])(nil)
	_ core[int] = (*Bucket[int])(nil)
	_ core[int] = (*ItemBucket[int])(nil)
	_ core[int] = (*MaxOf[int])(nil)
	_ core[int] = MaxWait[int]{}
)

// ours returns the core of l if l is one of this package's limiters: if its dynamic type is one
// of those above, and not a type of yours that embeds one. Such a type has our unexported
// methods too, promoted from the limiter it embeds, but they would skip the When, Forget and
// NumRequeues it declares: it must be called through those, as client-go calls it. Every
// question of whether a limiter is ours (Safe, IsNil, Adopt, Release, WhenAt, the combinators'
// parts) is asked here.
//
// It asks of l's type, not of its value, so it cannot panic: comparing l with the limiter its
// core methods see would panic for a MaxWait around a limiter that is not comparable, and would
// fail for a *MaxWait, whose methods, with a value receiver, see a MaxWait.
func ours[T comparable](l RateLimiter[T]) (core[T], bool) {
	switch l.(type) {
	case *Exponential[T], *FastSlow[T], *Bucket[T], *ItemBucket[T], *MaxOf[T], MaxWait[T], *MaxWait[T]:
		c, ok := l.(core[T])
		return c, ok
	}
	return nil, false
}

// part returns the core of l, a part of a safe combinator, and so one of ours (see safe).
func part[T comparable](l RateLimiter[T]) core[T] {
	c, _ := ours(l)
	return c
}

// when, forget and count are the exported WhenAt, Forget and NumRequeues of a limiter c with
// state, guarded by g: under g's lock, or through its owner while it has one. The lock path
// makes no closure that escapes, so that it does not allocate.

func when[T comparable](g *guard, c core[T], item T, now time.Time) time.Duration {
	for {
		o := g.enter()
		if o == nil {
			return locked(g, func() time.Duration { return c.whenAt(item, now) })
		}
		var wait time.Duration
		if g.through(o, func() { wait = c.whenAt(item, now) }) {
			return wait
		}
	}
}

func forget[T comparable](g *guard, c core[T], item T) {
	for {
		o := g.enter()
		if o == nil {
			locked(g, func() struct{} { c.forget(item); return struct{}{} })
			return
		}
		if g.through(o, func() { c.forget(item) }) {
			return
		}
	}
}

func count[T comparable](g *guard, c core[T], item T) int {
	for {
		o := g.enter()
		if o == nil {
			return locked(g, func() int { return c.numRequeues(item) })
		}
		var n int
		if g.through(o, func() { n = c.numRequeues(item) }) {
			return n
		}
	}
}

// tracked is the exported Tracked of a limiter l that remembers failures, guarded by g.
func tracked[T comparable](g *guard, l interface{ memory() failures[T] }) int {
	for {
		o := g.enter()
		if o == nil {
			return locked(g, func() int { return l.memory().len() })
		}
		var n int
		if g.through(o, func() { n = l.memory().len() }) {
			return n
		}
	}
}

// locked returns f's result, f having run with the lock that enter took, which it releases
// even if f panics.
func locked[R any](g *guard, f func() R) R {
	defer g.leave()
	return f()
}
