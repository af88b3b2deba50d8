package limiter

import (
	"time"

	"github.com/actorqueue/workqueue/internal/table"
)

// failures counts the failures of each item, for the limiters that back off per item.
type failures[T comparable] interface {
	// add records a failure of item at the instant now and returns how many it counts, this
	// one included. An item not equal to itself (a NaN) is never found again, so it counts 0,
	// as a lookup in client-go's map of failures finds.
	add(item T, now time.Time) int
	// count returns how many failures of item are counted.
	count(item T) int
	// forget stops counting item.
	forget(item T)
	// len returns how many items are counted.
	len() int
}

// newFailures returns the counter that o asks for: a plain table when items are kept until
// Forget, whatever their number, as in client-go, so that this costs no more than there; a
// [recency] otherwise.
func newFailures[T comparable](o options) failures[T] {
	if o.forgetAfter == 0 && o.maxTracked == 0 {
		return new(counts[T])
	}
	return newRecency[T](o.forgetAfter, o.maxTracked)
}

// unmade stands for the failures of a limiter's zero value, which no constructor made. Like
// client-go's zero value, whose nil map reads as empty, it counts nothing and forgets without
// complaint; recording a failure panics there, and here too, with a message that says why.
type unmade[T comparable] struct{ limiter string }

func (u unmade[T]) add(T, time.Time) int {
	panic("workqueue: " + u.limiter + ": the zero value cannot count failures: create it with its constructor")
}

func (unmade[T]) count(T) int { return 0 }
func (unmade[T]) forget(T)    {}
func (unmade[T]) len() int    { return 0 }

// counts keeps the failures of every item until forget.
type counts[T comparable] struct{ table.Map[T, int] }

func (c *counts[T]) add(item T, _ time.Time) int {
	if c.Len() == 0 {
		// client-go reads the count before it writes: an unhashable item panics as that read
		// does, which on an empty map is not as a write does.
		c.Get(item)
	}
	n, _ := c.Ref(item)
	*n++
	if item != item {
		return 0 // a NaN: its entry is never found again, as in client-go's map
	}
	return *n
}

func (c *counts[T]) count(item T) int {
	n, _ := c.Get(item)
	return n
}

func (c *counts[T]) forget(item T) { c.Delete(item) }
func (c *counts[T]) len() int      { return c.Len() }
