package limiter

import "time"

// recency counts the failures of each item, and keeps the items in the order of their last
// failure, so as to forget an item that has not failed for forgetAfter (unless that is zero),
// and the least recently failed item when a new one would exceed maxTracked (unless that is
// zero).
//
// Its time is the latest instant it has been given, so it never runs backwards: items then
// stay in the order of their last failure, oldest first, and expiry only has to look at the
// oldest ones. Every failure sweeps the expired items out, so what it holds is exactly what
// it counts.
type recency[T comparable] struct {
	entries     map[T]*failure[T]
	oldest      *failure[T] // least recently failed; nil when empty
	newest      *failure[T] // most recently failed; nil when empty
	now         time.Time   // the latest instant seen
	forgetAfter time.Duration
	maxTracked  int
}

// failure is the count of one item, linked in the order of last failures.
type failure[T comparable] struct {
	item         T
	count        int
	last         time.Time
	older, newer *failure[T]
}

func newRecency[T comparable](forgetAfter time.Duration, maxTracked int) *recency[T] {
	return &recency[T]{entries: make(map[T]*failure[T]), forgetAfter: forgetAfter, maxTracked: maxTracked}
}

// add records a failure of item at the instant now and returns how many it counts, this one
// included.
func (r *recency[T]) add(item T, now time.Time) int {
	if item != item {
		return 0 // a NaN: an entry could never be found, nor removed from entries
	}
	if now.After(r.now) {
		r.now = now
	}
	r.expire()
	e, ok := r.entries[item]
	if ok {
		r.unlink(e)
	} else {
		if r.maxTracked > 0 && len(r.entries) >= r.maxTracked {
			r.remove(r.oldest)
		}
		e = &failure[T]{item: item}
		r.entries[item] = e
	}
	e.count++
	e.last = r.now
	r.append(e)
	return e.count
}

// expire forgets the items whose last failure is more than forgetAfter before now.
func (r *recency[T]) expire() {
	if r.forgetAfter == 0 {
		return
	}
	for r.oldest != nil && r.now.Sub(r.oldest.last) > r.forgetAfter {
		r.remove(r.oldest)
	}
}

// count returns how many failures of item are counted.
func (r *recency[T]) count(item T) int {
	if e, ok := r.entries[item]; ok {
		return e.count
	}
	return 0
}

// forget stops counting item.
func (r *recency[T]) forget(item T) {
	if e, ok := r.entries[item]; ok {
		r.remove(e)
	}
}

// len returns how many items are counted.
func (r *recency[T]) len() int { return len(r.entries) }

// remove forgets e.
func (r *recency[T]) remove(e *failure[T]) {
	r.unlink(e)
	delete(r.entries, e.item)
}

// append links e as the newest.
func (r *recency[T]) append(e *failure[T]) {
	e.older, e.newer = r.newest, nil
	if r.newest != nil {
		r.newest.newer = e
	} else {
		r.oldest = e
	}
	r.newest = e
}

// unlink takes e out of the order.
func (r *recency[T]) unlink(e *failure[T]) {
	if e.older != nil {
		e.older.newer = e.newer
	} else {
		r.oldest = e.newer
	}
	if e.newer != nil {
		e.newer.older = e.older
	} else {
		r.newest = e.older
	}
	e.older, e.newer = nil, nil
}
