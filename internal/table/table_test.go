package table

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

func TestMap(t *testing.T) {
	var m Map[string, int]
	if _, ok := m.Get("a"); ok || m.Delete("a") || m.Len() != 0 {
		t.Fatal("the zero Map is not empty")
	}
	m.Put("a", 1)
	m.Put("b", 2)
	m.Put("a", 3)
	if v, ok := m.Get("a"); !ok || v != 3 || m.Len() != 2 {
		t.Errorf("Get(a) = %d, %v with Len %d; want 3, true with 2", v, ok, m.Len())
	}
	if !m.Delete("a") || m.Delete("a") || m.Has("a") || !m.Has("b") || m.Len() != 1 {
		t.Error("Delete did not remove exactly a")
	}
}

// TestMapMatchesGoMap applies random operations to a Map and a built-in map over a key space
// small enough for collisions, growth, shrinking and long runs of deletions.
func TestMapMatchesGoMap(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		matchGoMap(t, fmt.Sprint("seed ", seed), rng, 1+rng.IntN(2000), 20_000, 500)
	}
}

// matchGoMap applies ops random operations on the keys 0 to keys-1 to a Map and to a built-in
// map, and fails at the first answer that differs, or at a fault in the Map's layout (checked
// 20 times in the run). Once in sweepOdds operations, on average, the entries of one value
// class go at once, as stale ones are swept.
func matchGoMap(t *testing.T, run string, rng *rand.Rand, keys, ops, sweepOdds int) {
	t.Helper()
	var m Map[int, int]
	want := map[int]int{}
	for op := range ops {
		k := rng.IntN(keys)
		switch rng.IntN(4) {
		case 0:
			m.Put(k, op)
			want[k] = op
		case 1:
			_, present := want[k]
			if got := m.Delete(k); got != present {
				t.Fatalf("%s op %d: Delete(%d) = %v, want %v", run, op, k, got, present)
			}
			delete(want, k)
		case 2:
			v, ok := m.Get(k)
			w, present := want[k]
			if ok != present || v != w {
				t.Fatalf("%s op %d: Get(%d) = %d, %v; want %d, %v", run, op, k, v, ok, w, present)
			}
		case 3: // add one to the value, as a count kept by Ref would
			v, found := m.Ref(k)
			w, present := want[k]
			if found != present || *v != w {
				t.Fatalf("%s op %d: Ref(%d) = %d, %v; want %d, %v", run, op, k, *v, found, w, present)
			}
			*v++
			want[k]++
		}
		if rng.IntN(sweepOdds) == 0 {
			class, classes := rng.IntN(3), 1+rng.IntN(3)
			stale := func(k, v int) bool { return v%classes == class }
			if rng.IntN(2) == 0 {
				m.DeleteFunc(stale)
			} else {
				m.GrowFunc(stale)
			}
			for k, v := range want {
				if stale(k, v) {
					delete(want, k)
				}
			}
		}
		if m.Len() != len(want) {
			t.Fatalf("%s op %d: Len = %d, want %d", run, op, m.Len(), len(want))
		}
		if op%(ops/20) != 0 {
			continue
		}
		if err := tableFault(&m); err != nil {
			t.Fatalf("%s op %d: %v", run, op, err)
		}
	}
	for k, w := range want {
		if v, ok := m.Get(k); !ok || v != w {
			t.Fatalf("%s: at the end, Get(%d) = %d, %v; want %d", run, k, v, ok, w)
		}
	}
}

// TestMapEveryProbeSequenceIsUnbroken checks the invariant backward-shift deletion keeps: from
// a key's home slot to the key, no slot is empty.
func TestMapEveryProbeSequenceIsUnbroken(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var m Map[int, struct{}]
	for op := range 100000 {
		k := rng.IntN(5000)
		switch {
		case rng.IntN(1000) == 0: // a sweep of one key in three, which moves runs back mid-pass
			m.DeleteFunc(func(key int, _ struct{}) bool { return key%3 == k%3 })
		case rng.IntN(1000) == 0: // the same sweep, as the table grows
			m.GrowFunc(func(key int, _ struct{}) bool { return key%3 == k%3 })
		case rng.IntN(2) == 0:
			m.Put(k, struct{}{})
		default:
			m.Delete(k)
		}
		if op%997 != 0 {
			continue
		}
		if err := tableFault(&m); err != nil {
			t.Fatalf("op %d: %v", op, err)
		}
	}
}

func TestMapGrowsAndShrinks(t *testing.T) {
	var m Map[int, bool]
	for i := range 100000 {
		m.Put(i, true)
	}
	if m.size > 4*m.Len() {
		t.Errorf("%d slots for %d entries", m.size, m.Len())
	}
	for i := range 99990 {
		m.Delete(i)
	}
	if m.size > 256 {
		t.Errorf("%d slots kept for %d entries", m.size, m.Len())
	}
	for i := 99990; i < 100000; i++ {
		if !m.Has(i) {
			t.Fatalf("lost %d", i)
		}
	}
}

// A draining table keeps its size until it is at most 1/32 full, then shrinks in one step to a
// table at most a quarter full.
func TestMapShrinksOnlyWhenNearlyEmpty(t *testing.T) {
	var m Map[int, bool]
	for i := range 100000 {
		m.Put(i, true)
	}
	full := m.size
	next := 0
	for m.Len() > full/32 {
		m.Delete(next)
		next++
	}
	if m.size != full {
		t.Fatalf("%d slots for %d entries, want the %d of the full table", m.size, m.Len(), full)
	}
	m.Delete(next)
	if want := 1 << bits.Len(uint(4*m.Len())); m.size != want {
		t.Errorf("%d slots for %d entries once below 1/32 full, want %d", m.size, m.Len(), want)
	}
}

func TestMapKeysLikeABuiltinMap(t *testing.T) {
	var m Map[any, int]
	m.Put(0.0, 1)
	if v, _ := m.Get(math.Copysign(0, -1)); v != 1 {
		t.Error("-0 is not the same key as +0")
	}
	m.Put(math.NaN(), 2)
	m.Put(math.NaN(), 3)
	if m.Has(math.NaN()) || m.Len() != 3 {
		t.Error("a NaN key was found again")
	}
	m.Put(struct{ a, b int }{1, 2}, 4)
	if v, _ := m.Get(struct{ a, b int }{1, 2}); v != 4 {
		t.Error("an equal struct is not the same key")
	}
}

// TestMapPanicsLikeABuiltinMap: a key that cannot be hashed panics in every call, empty map or
// not, with a runtime error, as a built-in map does in the same call.
func TestMapPanicsLikeABuiltinMap(t *testing.T) {
	key := []int{1}
	caught := func(call func()) (p any) {
		defer func() { p = recover() }()
		call()
		return nil
	}
	for _, empty := range []bool{true, false} {
		var m Map[any, int]
		builtin := map[any]int{}
		if !empty {
			m.Put("a", 1)
			builtin["a"] = 1
		}
		calls := []struct {
			name          string
			call, builtin func()
		}{
			{"Put", func() { m.Put(key, 1) }, func() { builtin[key] = 1 }},
			{"Ref", func() { m.Ref(key) }, func() { builtin[key]++ }},
			{"Get", func() { m.Get(key) }, func() { _ = builtin[key] }},
			{"Delete", func() { m.Delete(key) }, func() { delete(builtin, key) }},
		}
		for _, c := range calls {
			got, want := caught(c.call), caught(c.builtin)
			if !hashFault(want) || !hashFault(got) {
				t.Errorf("empty: %v: %s panicked with %T %v, want %T %v", empty, c.name, got, got, want, want)
			}
		}
	}
}

// TestMapPrefetchReadsOnlyLargeTables: Prefetch reads the home slot of every key once the table
// has outgrown the cache, where a present key's home slot is always used, and reads nothing in
// a smaller table. It changes no entry, and a key that cannot be hashed ends it quietly.
func TestMapPrefetchReadsOnlyLargeTables(t *testing.T) {
	var m Map[any, int]
	keys := func(from, to int) []any {
		var keys []any
		for k := from; k < to; k++ {
			keys = append(keys, k)
		}
		return keys
	}
	m.Put(0, 0)
	m.Prefetch(keys(0, 1))
	if m.read != 0 {
		t.Errorf("Prefetch read %d used slots of a table of %d slots, want none", m.read, m.size)
	}
	for k := range prefetchFrom {
		m.Put(k, -k)
	}
	const present = 1000 // more than one batch of hashes
	m.Prefetch(keys(0, present))
	if m.read != present {
		t.Errorf("Prefetch of %d present keys read %d used slots, want one each", present, m.read)
	}
	m.Prefetch([]any{1, []int{1}, 2})
	if m.Len() != prefetchFrom {
		t.Fatalf("Len = %d after Prefetch, want %d", m.Len(), prefetchFrom)
	}
	for k := range prefetchFrom {
		if v, ok := m.Get(k); !ok || v != -k {
			t.Fatalf("Get(%d) = %d, %v after Prefetch, want %d, true", k, v, ok, -k)
		}
	}
}

func BenchmarkChurn(b *testing.B) {
	const live = 100000
	b.Run("table", func(b *testing.B) {
		var m Map[int, struct{}]
		for i := range live {
			m.Put(i, struct{}{})
		}
		b.ResetTimer()
		for i := range b.N {
			if !m.Has(live + i) {
				m.Put(live+i, struct{}{})
			}
			m.Delete(i)
		}
	})
	b.Run("builtin", func(b *testing.B) {
		m := map[int]struct{}{}
		for i := range live {
			m[i] = struct{}{}
		}
		b.ResetTimer()
		for i := range b.N {
			if _, ok := m[live+i]; !ok {
				m[live+i] = struct{}{}
			}
			delete(m, i)
		}
	})
}

// hashFault reports whether p is the runtime error of a built-in map asked to hash a []int. Its
// type and wording depend on the map's state and on the build (-race changes them), so only
// its kind and its subject are compared.
func hashFault(p any) bool {
	err, ok := p.(runtime.Error)
	return ok && strings.Contains(err.Error(), "hash of unhashable type") && strings.Contains(err.Error(), "[]int")
}

// A hash is never the zero of an empty slot, and keeps the bits that place its key.
func TestMarkedHashIsNeverEmpty(t *testing.T) {
	for _, h := range []uint64{0, 1, 1 << 32, 1<<31 - 1, 1 << 31, math.MaxUint64} {
		if got := marked(h); got == 0 || got&(1<<31-1) != uint32(h)&(1<<31-1) {
			t.Errorf("marked(%#x) = %#x: want it nonzero, with the low 31 bits of the hash", h, got)
		}
	}
}

// Every hash a table stores is marked, so that none is taken for an empty slot.
func TestMapHashesAreMarked(t *testing.T) {
	var m Map[int, struct{}]
	m.Put(0, struct{}{}) // the first add picks the seed
	for k := range 1000 {
		if h := m.hash(k); h>>31 != 1 {
			t.Fatalf("hash(%d) = %#x: its top bit is not set", k, h)
		}
	}
}

// An entry of the delay heap's index, an int key and an int32 slot number, takes no more room
// in its slot than its fields and the hash: the mark of a used slot costs no byte of its own.
func TestMapSlotHoldsNoMoreThanItsEntry(t *testing.T) {
	type fields struct {
		key  int
		val  int32
		hash uint32
	}
	if size, want := unsafe.Sizeof(slot[int, int32]{}), unsafe.Sizeof(fields{}); size != want {
		t.Errorf("a slot of Map[int, int32] takes %d bytes, want %d", size, want)
	}
}

// A sweep leaves the table as Delete would have, one key at a time: a table it leaves at most
// 1/32 full shrinks, and one it leaves fuller keeps its array.
func TestMapDeleteFuncShrinksAsDeleteWould(t *testing.T) {
	var m Map[int, int]
	for i := range 4096 {
		m.Put(i, i)
	}
	size := m.size
	m.DeleteFunc(func(k, _ int) bool { return k%2 == 0 })
	if m.size != size || m.Len() != 2048 {
		t.Errorf("half swept: %d slots for %d entries; want the %d slots kept for 2048", m.size, m.Len(), size)
	}
	m.DeleteFunc(func(k, _ int) bool { return k >= 64 })
	if m.Len() != 32 || m.size > 256 {
		t.Errorf("all but 32 swept: %d slots for %d entries; want at most 256 for 32", m.size, m.Len())
	}
	for k := 1; k < 64; k += 2 {
		if v, ok := m.Get(k); !ok || v != k {
			t.Fatalf("Get(%d) = %d, %v after the sweeps; want %d, true", k, v, ok, k)
		}
	}
	m.DeleteFunc(func(int, int) bool { return true })
	if m.Len() != 0 || m.size != minSize || m.Has(1) {
		t.Errorf("all swept: %d entries in %d slots, want 0 in %d", m.Len(), m.size, minSize)
	}
	m.Put(5, 5) // and the table goes on
	if v, ok := m.Get(5); !ok || v != 5 {
		t.Errorf("after sweeping everything, Get(5) = %d, %v", v, ok)
	}
}

// DeleteFunc asks about each entry once, however the runs of used slots wrap around the end of
// the table and move back as entries go.
func TestMapDeleteFuncAsksOnceAboutEachEntry(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 9))
		var m Map[int, struct{}]
		for m.Len() < 5 || !m.Full() { // as full as the table gets, so runs are long and wrap
			m.Put(rng.Int(), struct{}{})
		}
		asked := map[int]int{}
		m.DeleteFunc(func(k int, _ struct{}) bool {
			asked[k]++
			return rng.IntN(2) == 0
		})
		for k, n := range asked {
			if n != 1 {
				t.Fatalf("seed %d: asked %d times about %d", seed, n, k)
			}
		}
	}
}

// GrowFunc doubles the table and deletes the entries del picks, asking about each entry once;
// the table goes on from there. An empty table has nothing to grow.
func TestMapGrowFuncGrowsAndDeletes(t *testing.T) {
	var m Map[int, int]
	m.GrowFunc(func(int, int) bool { t.Fatal("asked about an entry of an empty table"); return false })
	if m.Len() != 0 || m.size != 0 {
		t.Fatalf("an empty table grew to %d slots", m.size)
	}
	for i := 0; m.Len() == 0 || !m.Full(); i++ {
		m.Put(i, 10*i)
	}
	n, size := m.Len(), m.size
	asked := map[int]int{}
	m.GrowFunc(func(k, v int) bool {
		asked[k]++
		if v != 10*k {
			t.Errorf("asked about %d with value %d, want %d", k, v, 10*k)
		}
		return k%2 == 1
	})
	if m.size != 2*size || m.Len() != (n+1)/2 {
		t.Errorf("%d entries in %d slots after GrowFunc; want %d in %d", m.Len(), m.size, (n+1)/2, 2*size)
	}
	for k := range n {
		if asked[k] != 1 {
			t.Errorf("asked %d times about %d, want once", asked[k], k)
		}
		if v, ok := m.Get(k); ok != (k%2 == 0) || ok && v != 10*k {
			t.Errorf("Get(%d) = %d, %v after GrowFunc; want it only if even", k, v, ok)
		}
	}
	m.Put(n, 10*n)
	if v, ok := m.Get(n); !ok || v != 10*n || m.size != 2*size {
		t.Errorf("after GrowFunc, Get(%d) = %d, %v in %d slots", n, v, ok, m.size)
	}
}
