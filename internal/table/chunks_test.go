package table

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"testing"
	"unsafe"
	"weak"
)

// liveHeap collects garbage and returns the bytes of live heap objects.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A growth moves the entries one old chunk at a time and lets each old chunk go once its
// entries have moved: midway, the table holds the new chunks made so far and the old ones not
// yet moved, at most its new size and a few chunks, never its old size and its new one. GrowFunc
// asks about the entries as it moves them, so a garbage collection run when it asks about the
// first entry of an old chunk sees the growth midway.
func TestMapGrowthLetsOldChunksGo(t *testing.T) {
	const oldChunks = 16
	var m Map[int, int]
	for i := 0; m.Size() < oldChunks*chunkLen || !m.Full(); i++ {
		m.Put(i, i)
	}
	chunkOf := make(map[int]int, m.Len())
	old := make([]weak.Pointer[slot[int, int]], len(m.chunks))
	for j, chunk := range m.chunks {
		old[j] = weak.Make(&chunk[0])
		for _, s := range chunk {
			if s.used() {
				chunkOf[s.key] = j
			}
		}
	}
	chunkBytes := uint64(chunkLen * unsafe.Sizeof(slot[int, int]{}))
	before := liveHeap() // the old table and what the test keeps
	moving, peak := -1, uint64(0)
	m.GrowFunc(func(k, _ int) bool {
		if j := chunkOf[k]; j != moving {
			moving = j
			if grown := liveHeap() - before; grown > peak {
				peak = grown
			}
			for i := range j {
				if old[i].Value() != nil {
					t.Fatalf("moving old chunk %d: old chunk %d, moved, is still held", j, i)
				}
			}
		}
		return false
	})
	if moving != oldChunks-1 {
		t.Fatalf("the last entry asked about was in chunk %d of %d", moving, oldChunks)
	}
	// The old table is counted in before: a growth that kept it whole to the end would add the
	// whole new table, twice its size.
	t.Logf("midway through growing from %d chunks to %d, the heap grew by %d KB at most (a chunk: %d KB)",
		oldChunks, 2*oldChunks, peak>>10, chunkBytes>>10)
	if limit := (oldChunks + 4) * chunkBytes; peak > limit {
		t.Errorf("midway through the growth the heap grew by %d KB: want at most %d KB, the new table less the old, and 4 chunks",
			peak>>10, limit>>10)
	}
	for k := range chunkOf {
		if v, ok := m.Get(k); !ok || v != k {
			t.Fatalf("after the growth, Get(%d) = %d, %v", k, v, ok)
		}
	}
}

// A growth makes every chunk of the new table, those no entry reached too: the keys that come
// next may land anywhere.
func TestMapGrowthMakesChunksNoEntryReached(t *testing.T) {
	var m Map[int, int]
	for i := range 3 * chunkLen {
		m.Put(i, i)
	}
	m.GrowFunc(func(k, _ int) bool { return k != 0 }) // one entry left, in 8 chunks
	for i := range 4 * chunkLen {
		m.Put(i, -i)
	}
	for i := range 4 * chunkLen {
		if v, ok := m.Get(i); !ok || v != -i {
			t.Fatalf("Get(%d) = %d, %v; want %d, true", i, v, ok, -i)
		}
	}
}

// TestMapOfManyChunksMatchesGoMap is TestMapMatchesGoMap on a table of up to 8 chunks, whose
// growths, shrinks and sweeps move entries between chunks.
func TestMapOfManyChunksMatchesGoMap(t *testing.T) {
	matchGoMap(t, "many chunks:", rand.New(rand.NewPCG(3, 3)), 8*chunkLen, 200_000, 20_000)
}

// Runs of used slots that cross from one chunk to the next, and from the last chunk to the
// first, are found, shifted back by deletions, swept and moved by a growth as any other run.
// The test makes such runs on purpose: keys whose home is the last slot but one of a chunk.
func TestMapRunsAcrossChunks(t *testing.T) {
	var m Map[int, int]
	want := map[int]int{}
	for k := range 13_000 { // 4 chunks, 40% full
		m.Put(k, k)
		want[k] = k
	}
	size := m.Size()
	if size != 4*chunkLen {
		t.Fatalf("%d slots for %d keys, want %d", size, m.Len(), 4*chunkLen)
	}
	var runs []int // keys homed in the last slot but one of chunk 0, then of the last chunk
	for _, home := range []int{chunkLen - 2, size - 2} {
		for k, found := 1<<40, 0; found < 6; k++ {
			if int(m.hash(k))&(size-1) == home {
				runs = append(runs, k)
				found++
			}
		}
	}
	for _, k := range runs {
		m.Put(k, -k)
		want[k] = -k
	}
	// Six keys homed in the last slot but one of a chunk take the first six empty slots from
	// there: four at least lie in the next chunk, the first after the last.
	for r, next := range []int{1, 0} {
		beyond := 0
		for _, k := range runs[6*r : 6*r+6] {
			if i, _ := m.find(k, m.hash(k)); i>>chunkBits == next {
				beyond++
			}
		}
		if beyond < 4 {
			t.Fatalf("%d keys of run %d lie in chunk %d, want 4 or more", beyond, r, next)
		}
	}
	if err := tableFault(&m); err != nil {
		t.Fatal(err)
	}
	checkContents(t, &m, want)
	steps := []struct {
		name string
		do   func()
	}{
		{"delete the keys in the last slot but one of chunk 0 and of the table", func() {
			for _, i := range []int{chunkLen - 2, size - 2} { // the runs go on past the chunk's end
				k := m.at(i).key
				m.Delete(k)
				delete(want, k)
			}
		}},
		{"sweep every other key of the runs", func() {
			m.DeleteFunc(func(k, v int) bool { return v < 0 && k%2 == 0 })
			for _, k := range runs {
				if k%2 == 0 {
					delete(want, k)
				}
			}
		}},
		{"grow", func() { m.GrowFunc(func(int, int) bool { return false }) }},
	}
	for _, step := range steps {
		step.do()
		if m.Size() < size {
			t.Fatalf("after %s: the table shrank to %d slots", step.name, m.Size())
		}
		if err := tableFault(&m); err != nil {
			t.Fatalf("after %s: %v", step.name, err)
		}
		checkContents(t, &m, want)
	}
}

// checkContents checks that m holds exactly the entries of want.
func checkContents(t *testing.T, m *Map[int, int], want map[int]int) {
	t.Helper()
	if m.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", m.Len(), len(want))
	}
	for k, w := range want {
		if v, ok := m.Get(k); !ok || v != w {
			t.Fatalf("Get(%d) = %d, %v; want %d, true", k, v, ok, w)
		}
	}
}

// tableFault returns what is wrong with m's layout, or nil: the table must be first alone, of
// its size, or whole chunks, all made, with first the first of them; and from every key's home
// slot to the key, no slot may be empty.
func tableFault[V any](m *Map[int, V]) error {
	slots := len(m.first)
	if m.chunks != nil {
		slots = len(m.chunks) * chunkLen
		for j, chunk := range m.chunks {
			if chunk == nil {
				return fmt.Errorf("chunk %d of %d was not made", j, len(m.chunks))
			}
		}
		if len(m.first) != chunkLen || &m.first[0] != &m.chunks[0][0] {
			return fmt.Errorf("first is not chunk 0")
		}
	}
	if slots != m.Size() {
		return fmt.Errorf("%d slots in a table of %d", slots, m.Size())
	}
	mask := m.Size() - 1
	for i := range m.Size() {
		s := m.at(i)
		if !s.used() {
			continue
		}
		for j := int(m.hash(s.key)) & mask; j != i; j = (j + 1) & mask {
			if !m.at(j).used() {
				return fmt.Errorf("key %d at %d, empty slot %d between it and its home", s.key, i, j)
			}
		}
	}
	return nil
}
