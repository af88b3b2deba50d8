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
func (f *recency[T]) add(item T, now time.Time) int {
	if now.After(f.now) {
		f.now = now
	}
	f.expire()
	e, ok := f.entries[item]
	if ok {
		f.unlink(e)
	} else {
		if f.maxTracked > 0 && len(f.entries) >= f.maxTracked {
			f.remove(f.oldest)
		}
		e = &failure[T]{item: item}
		f.entries[item] = e
	}
	e.count++
	e.last = f.now
	f.append(e)
	return e.count
}

// expire forgets the items whose last failure is more than forgetAfter before now.
func (f *recency[T]) expire() {
	if f.forgetAfter == 0 {
		return
	}
	for f.oldest != nil && f.now.Sub(f.oldest.last) > f.forgetAfter {
		f.remove(f.oldest)
	}
}

// count returns how many failures of item are counted.
func (f *recency[T]) count(item T) int {
	if e, ok := f.entries[item]; ok {
		return e.count
	}
	return 0
}

// forget stops counting item.
func (f *recency[T]) forget(item T) {
	if e, ok := f.entries[item]; ok {
		f.remove(e)
	}
}

// len returns how many items are counted.
func (f *recency[T]) len() int { return len(f.entries) }

// remove forgets e.
func (f *recency[T]) remove(e *failure[T]) {
	f.unlink(e)
	delete(f.entries, e.item)
}

// append links e as the newest.
func (f *recency[T]) append(e *failure[T]) {
	e.older, e.newer = f.newest, nil
	if f.newest != nil {
		f.newest.newer = e
	} else {
		f.oldest = e
	}
	f.newest = e
}

// unlink takes e out of the order.
func (f *recency[T]) unlink(e *failure[T]) {
	if e.older != nil {
		e.older.newer = e.newer
	} else {
		f.oldest = e.newer
	}
	if e.newer != nil {
		e.newer.older = e.older
	} else {
		f.newest = e.older
	}
	e.older, e.newer = nil, nil
}
