package limiter

import (
	"math/rand/v2"
	"testing"
	"time"
)

// model is failures written the obvious way: for each item its count and the instant and rank
// of its last failure, with full scans to expire and to evict.
type model struct {
	count       map[int]int
	last        map[int]time.Time
	rank        map[int]int // how many failures came before the item's last one
	failures    int
	now         time.Time
	forgetAfter time.Duration
	maxTracked  int
}

func (m *model) add(item int, now time.Time) int {
	if now.After(m.now) {
		m.now = now
	}
	for other, last := range m.last {
		if m.forgetAfter > 0 && m.now.Sub(last) > m.forgetAfter {
			m.forget(other)
		}
	}
	if _, ok := m.count[item]; !ok && m.maxTracked > 0 && len(m.count) >= m.maxTracked {
		oldest := -1
		for other, rank := range m.rank {
			if oldest < 0 || rank < m.rank[oldest] {
				oldest = other
			}
		}
		m.forget(oldest)
	}
	m.count[item]++
	m.last[item] = m.now
	m.rank[item] = m.failures
	m.failures++
	return m.count[item]
}

func (m *model) forget(item int) {
	delete(m.count, item)
	delete(m.last, item)
	delete(m.rank, item)
}

// checkLinks fails t unless f, when it is a recency, holds every entry once in its order,
// oldest failure first.
func checkLinks(t *testing.T, f failures[int]) {
	t.Helper()
	r, ok := f.(*recency[int])
	if !ok {
		return
	}
	seen := 0
	var older *failure[int]
	for e := r.oldest; e != nil; older, e = e, e.newer {
		seen++
		if r.entries[e.item] != e || e.older != older || (older != nil && e.last.Before(older.last)) {
			t.Fatalf("entry %d is out of place", e.item)
		}
	}
	if seen != len(r.entries) || r.newest != older {
		t.Fatalf("the order holds %d entries, the map %d", seen, len(r.entries))
	}
}

func TestFailuresAgainstAModel(t *testing.T) {
	for _, cfg := range []options{
		{},
		{forgetAfter: time.Minute},
		{maxTracked: 5},
		{forgetAfter: time.Minute, maxTracked: 5},
		{forgetAfter: 1, maxTracked: 1},
	} {
		random := rand.New(rand.NewPCG(uint64(cfg.forgetAfter), uint64(cfg.maxTracked)))
		f := newFailures[int](cfg)
		m := &model{count: map[int]int{}, last: map[int]time.Time{}, rank: map[int]int{}, forgetAfter: cfg.forgetAfter, maxTracked: cfg.maxTracked}
		at := t0
		for i := range 5000 {
			item := random.IntN(20)
			switch op := random.IntN(10); {
			case op == 0:
				f.forget(item)
				m.forget(item)
			case op == 1:
				at = at.Add(-30 * time.Second) // an instant earlier than the latest
				fallthrough
			default:
				at = at.Add(time.Duration(random.IntN(15)) * time.Second)
				if got, want := f.add(item, at), m.add(item, at); got != want {
					t.Fatalf("%+v, step %d: add(%d) = %d, want %d", cfg, i, item, got, want)
				}
			}
			checkLinks(t, f)
			if got, want := f.len(), len(m.count); got != want {
				t.Fatalf("%+v, step %d: len() = %d, want %d", cfg, i, got, want)
			}
			if probe := random.IntN(20); f.count(probe) != m.count[probe] {
				t.Fatalf("%+v, step %d: count(%d) = %d, want %d", cfg, i, probe, f.count(probe), m.count[probe])
			}
		}
	}
}

func TestUnboundedCountingCostsWhatClientGosDoes(t *testing.T) {
	// Without expiry or cap, there is no order to keep: a table of counts, as client-go's map.
	if f, ok := newFailures[int](options{}).(*counts[int]); !ok {
		t.Errorf("newFailures without expiry or cap returns %T", f)
	}
}
