// Package table is the hash map behind a queue's hottest lookups: the waiting and processing
// sets, the delay heap's index and the rate limiters' failure counts.
//
// Through a queue's maps pass millions of distinct keys, each added once and deleted soon
// after. Go's built-in map leaves a tombstone for many deletions, so lookups of new keys probe
// further and further until the next rehash, and it never shrinks after a burst. [Map] uses
// open addressing with linear probing and backward-shift deletion: a deletion moves the
// following entries back instead of leaving a mark, so probe sequences stay as short as the
// load allows. A table that is at most 1/32 full shrinks at once to one at most a quarter
// full, so a queue draining a burst moves its last entries a few times, not at every halving
// (4 times, not 14, for a burst of 100,000), and a table cannot shrink and grow back in turn.
// The price is memory while a burst drains: up to 32 slots an entry, where halving at 1/8
// kept up to 8. An emptied table is back to 8 slots either way.
//
// # Growing in chunks
//
// A table's slots lie in chunks of 8192 (a smaller table is one chunk of its size), so that a
// growth never keeps the old table and the new one whole at once. A growth moves the entries
// one old chunk at a time, makes each new chunk when the first entry lands in it, and drops
// each old chunk as soon as its entries have moved: what the table keeps reachable reaches its
// new size and a few chunks, not its old size plus its new one. A table of a million string
// keys grows at 786,432 keys from 2²⁰ slots to 2²¹, 24 bytes each: it keeps 50 MB and a few
// hundred KB reachable during the growth instead of 75 MB, and the garbage collector may take
// the old chunks back before the growth ends. The price is one more read for a lookup beyond
// the first chunk: the chunk's address, from an array that stays in the first-level cache (2 KB
// for a million keys). The first chunk, the whole of a smaller table, is read directly.
package table

import (
	"hash/maphash"
	"math/bits"
)

// minSize is the smallest table a Map allocates.
const minSize = 8

// chunkBits sets the number of slots in a chunk: slot i is slot i&chunkMask of chunk
// i>>chunkBits. 8192 slots are 128 KB for an int key, 192 KB for a string key and a small value:
// large enough for a table of a million keys to need only a few hundred chunks, whose addresses
// stay in the first-level cache, and small enough for the chunks a growth holds beyond the new
// table's size to be small.
const (
	chunkBits = 13
	chunkLen  = 1 << chunkBits
	chunkMask = chunkLen - 1
)

// Map is a hash map from K to V. Its zero value is an empty map ready to use. It is not safe
// for concurrent use.
//
// Keys are hashed with hash/maphash, consistently with ==, like the keys of a built-in map: a
// NaN is never found again, and a key whose dynamic type is not comparable panics with a
// runtime error in every call where a built-in map would, empty or not.
type Map[K comparable, V any] struct {
	seed maphash.Seed
	// first is the first min(size, chunkLen) slots: a table of one chunk is first alone, and
	// chunks is nil. A larger table is chunks, and first is chunks[0], so that the slots of the
	// first chunk are read without looking it up; slot i is chunks[i>>chunkBits][i&chunkMask].
	// While a growth fills the table, first is nil and chunks has chunks not made yet.
	first  []slot[K, V]
	chunks []*[chunkLen]slot[K, V]
	size   int // number of slots: zero or a power of two
	n      int // used slots
	read   int // what the last Prefetch read, kept so that its reads are not dropped
}

type slot[K comparable, V any] struct {
	key  K
	val  V
	hash uint32 // the low bits of key's hash, top bit set: zero marks an empty slot
}

// at returns slot i, which must be less than the table's size.
func (m *Map[K, V]) at(i int) *slot[K, V] {
	if uint(i) < uint(len(m.first)) { // unsigned, so that m.first[i] needs no bounds check
		return &m.first[i]
	}
	return &m.chunks[i>>chunkBits][i&chunkMask]
}

// used reports whether the slot holds an entry. A flag of its own would cost a slot of an int
// key and an int32 value (the delay heap's index) half as much memory again: 24 bytes, not 16.
func (s *slot[K, V]) used() bool { return s.hash != 0 }

// Len returns the number of entries.
func (m *Map[K, V]) Len() int { return m.n }

// Get returns the value of key, and whether key is present.
func (m *Map[K, V]) Get(key K) (val V, ok bool) {
	if m.n == 0 {
		mustHash(key)
		return val, false
	}
	_, s := m.find(key, m.hash(key))
	if !s.used() {
		return val, false
	}
	return s.val, true
}

// Has reports whether key is present.
func (m *Map[K, V]) Has(key K) bool {
	_, ok := m.Get(key)
	return ok
}

// Put sets the value of key.
func (m *Map[K, V]) Put(key K, val V) {
	v, _ := m.Ref(key)
	*v = val
}

// Ref returns a pointer to the value of key, and whether key was present; an absent key is
// added first, with the zero value. It is Get and Put in one lookup. The pointer is good until
// the next call that adds or deletes a key.
func (m *Map[K, V]) Ref(key K) (val *V, found bool) {
	if m.size == 0 {
		m.seed = maphash.MakeSeed()
		m.layOut(minSize)
	}
	h := m.hash(key)
	_, s := m.find(key, h)
	if s.used() {
		return &s.val, true
	}
	if m.Full() {
		m.rehash(2*m.size, nil)
		_, s = m.find(key, h)
	}
	*s = slot[K, V]{key: key, hash: h}
	m.n++
	return &s.val, false
}

// Full reports whether adding one more key would grow the table: the load is kept at most three
// quarters.
func (m *Map[K, V]) Full() bool { return 4*(m.n+1) > 3*m.size }

// DeleteFunc deletes every entry for which del returns true, in one pass over the table that
// asks del once about each entry, and then shrinks the table as Delete would. A caller that
// lets entries go stale, rather than delete them one at a time, sweeps them with it: when the
// table is [Map.Full], say, so that it grows only if the entries left need the room. del must
// not panic or use the map: the pass would be left half done.
func (m *Map[K, V]) DeleteFunc(del func(K, V) bool) {
	if m.n == 0 {
		return
	}
	mask := m.size - 1
	// The pass empties the slot of every entry del picks and moves every other entry back to
	// the first empty slot from its home. Starting after an empty slot, it meets every run of
	// used slots at its start, so the slots from an entry's home to its own are settled when
	// it gets there: the entry goes where an insertion would put it now. The pass looks at
	// each slot once, where deleting one entry at a time would shift the rest of its run at
	// each deletion.
	start := 0
	for m.at(start).used() {
		start++
	}
	for k := 1; k <= m.size; {
		from := (start + k) & mask
		run := m.run(from)
		run = run[:min(len(run), m.size+1-k)]
		for x := range run {
			i, s := from+x, &run[x]
			switch {
			case !s.used():
			case del(s.key, s.val):
				*s = slot[K, V]{}
				m.n--
			default:
				j := int(s.hash) & mask
				for m.at(j).used() && j != i {
					j = (j + 1) & mask
				}
				if j != i {
					*m.at(j), *s = *s, slot[K, V]{}
				}
			}
		}
		k += len(run)
	}
	m.shrinkIfSparse()
}

// GrowFunc doubles the table, leaving behind every entry for which del returns true: it is
// DeleteFunc and a growth in one pass, asking del once about each entry, chunk after chunk. A
// caller that lets entries go stale calls it rather than DeleteFunc when the table is
// [Map.Full] and few of them are: a sweep in place would free only a few slots, and the next
// few additions would find the table full again. An empty table is left as it is. del must not
// panic or use the map: the growth would be left half done, with chunks not made.
func (m *Map[K, V]) GrowFunc(del func(K, V) bool) {
	if m.size == 0 {
		return
	}
	m.rehash(2*m.size, del)
}

// Size returns the number of slots.
func (m *Map[K, V]) Size() int { return m.size }

// prefetchFrom is the size, in slots, from which a table has outgrown the cache: at 16 bytes a
// slot (an int key), a megabyte, as large as the L2 cache of many cores.
const prefetchFrom = 1 << 16

// prefetchBatch is how many keys Prefetch hashes before it reads their slots.
const prefetchBatch = 64

// Outgrown reports whether the table is large enough for its lookups to miss the cache, which
// is when [Map.Prefetch] pays.
func (m *Map[K, V]) Outgrown() bool { return m.size >= prefetchFrom }

// Prefetch reads the slot where a lookup of each key starts, so that the lookups of those keys
// that follow soon find it in cache. In a table that has outgrown the cache, each lookup waits
// for memory; Prefetch's reads do not depend on one another, so the processor overlaps those
// waits. It hashes a batch of keys before it reads their slots, so that nothing but the reads
// stands between them. A table that has not outgrown the cache is not read: it would only hash
// each key twice. A key that cannot be hashed ends the prefetch quietly; its lookup panics.
func (m *Map[K, V]) Prefetch(keys []K) {
	if !m.Outgrown() {
		return
	}
	defer func() { _ = recover() }()
	mask := m.size - 1
	var hashes [prefetchBatch]uint32
	used := 0
	for len(keys) > 0 {
		batch := hashes[:min(len(keys), len(hashes))]
		for i := range batch {
			batch[i] = m.hash(keys[i])
		}
		for _, h := range batch {
			if m.at(int(h) & mask).used() {
				used++
			}
		}
		keys = keys[len(batch):]
	}
	m.read = used
}

// Delete removes key, and reports whether it was present.
func (m *Map[K, V]) Delete(key K) bool {
	if m.n == 0 {
		mustHash(key)
		return false
	}
	i, s := m.find(key, m.hash(key))
	if !s.used() {
		return false
	}
	m.removeAt(i)
	m.shrinkIfSparse()
	return true
}

// removeAt deletes the entry in slot i, moving back every following entry that may sit in the
// hole, so that no probe sequence crosses an empty slot before reaching its key.
func (m *Map[K, V]) removeAt(i int) {
	mask := m.size - 1
	hole := m.at(i)
	for from := (i + 1) & mask; ; {
		run := m.run(from)
		for x := range run {
			j, s := from+x, &run[x]
			if !s.used() {
				*hole = slot[K, V]{}
				m.n--
				return
			}
			if home := int(s.hash) & mask; (j-home)&mask >= (j-i)&mask {
				*hole = *s
				hole, i = s, j
			}
		}
		from = (from + len(run)) & mask
	}
}

// run returns the slots from slot i to the end of its chunk, for a pass that reads them in
// turn without looking their chunk up at each one.
func (m *Map[K, V]) run(i int) []slot[K, V] {
	if i < len(m.first) {
		return m.first[i:]
	}
	return m.chunks[i>>chunkBits][i&chunkMask:]
}

// shrinkIfSparse shrinks a table at most 1/32 used to one a quarter used or less.
func (m *Map[K, V]) shrinkIfSparse() {
	if m.size > minSize && 32*m.n < m.size {
		m.rehash(max(minSize, 1<<bits.Len(uint(4*m.n))), nil)
	}
}

// find returns the number of the slot holding key, whose hash is h, and the slot; or, if key is
// absent, those of the empty slot where it would go. It tests for an empty slot by its hash, not
// with used, which would take find over the budget of the compiler's inliner: Get and Ref would
// call it, a few nanoseconds more a lookup in a small table.
func (m *Map[K, V]) find(key K, h uint32) (i int, s *slot[K, V]) {
	mask := m.size - 1
	for i = int(h) & mask; ; i = (i + 1) & mask {
		if s = m.at(i); s.hash == 0 || s.hash == h && s.key == key {
			return i, s
		}
	}
}

// mustHash panics if key cannot be hashed, with the error a lookup in an empty built-in map
// raises: an empty Map hashes nothing. A nonempty one panics in maphash, as a nonempty
// built-in map panics in its hash function.
func mustHash[K comparable](key K) {
	var none map[K]struct{}
	_ = none[key]
}

// hash returns the low 31 bits of key's hash with the top bit set, so that no hash is zero,
// the mark of an empty slot. A slot's place is the hash modulo the table's size, so 31 bits
// spread keys over a table of up to 2³¹ slots (32 GiB at 16 bytes a slot); a larger table
// would still work, but start every key in 2³¹ of its slots.
func (m *Map[K, V]) hash(key K) uint32 { return marked(maphash.Comparable(m.seed, key)) }

func marked(hash uint64) uint32 { return uint32(hash) | 1<<31 }

// rehash moves every entry into a table of the given power-of-two size, except those that del,
// unless nil, picks: those are deleted. It moves the entries one old chunk at a time and drops
// each old chunk once its entries have moved, so that the collector may take it back before
// the move ends; the new chunks are made as entries reach them.
func (m *Map[K, V]) rehash(size int, del func(K, V) bool) {
	first, chunks := m.first, m.chunks
	m.layOut(size)
	if chunks == nil {
		m.move(first, del)
	}
	for j, chunk := range chunks {
		m.move(chunk[:], del)
		chunks[j] = nil
	}
	for j, chunk := range m.chunks { // those no entry reached
		if chunk == nil {
			m.chunks[j] = new([chunkLen]slot[K, V])
		}
	}
	if m.chunks != nil {
		m.first = m.chunks[0][:]
	}
}

// move places the entries of old in the table, except those that del, unless nil, picks.
func (m *Map[K, V]) move(old []slot[K, V], del func(K, V) bool) {
	for k := range old {
		s := &old[k]
		switch {
		case !s.used():
		case del != nil && del(s.key, s.val):
			m.n--
		default:
			m.place(s)
		}
	}
}

// layOut gives the table size slots: a first chunk of its own if it has one chunk; else chunks,
// not made yet, and no first, until rehash has filled them.
func (m *Map[K, V]) layOut(size int) {
	m.size = size
	if size <= chunkLen {
		m.first, m.chunks = make([]slot[K, V], size), nil
		return
	}
	m.first, m.chunks = nil, make([]*[chunkLen]slot[K, V], size>>chunkBits)
}

// place copies the entry in s to the first empty slot from its home, in a table being filled
// by rehash: the chunks it probes are made if they were not.
func (m *Map[K, V]) place(s *slot[K, V]) {
	mask := m.size - 1
	for i := int(s.hash) & mask; ; i = (i + 1) & mask {
		var t *slot[K, V]
		if m.chunks == nil {
			t = &m.first[i]
		} else {
			chunk := &m.chunks[i>>chunkBits]
			if *chunk == nil {
				*chunk = new([chunkLen]slot[K, V])
			}
			t = &(*chunk)[i&chunkMask]
		}
		if !t.used() {
			*t = *s
			return
		}
	}
}
