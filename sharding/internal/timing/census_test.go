package timing

import (
	"slices"
	"testing"
	"time"
)

// censusStep is one list of the Leases at t0 plus at, and what the census must decide: the
// fair share, and the Leases it asks for, in order. Of those, the ones in conflicts meet a
// conflict and are not noted as asked.
type censusStep struct {
	at        time.Duration
	leases    []LeaseSeen
	share     int
	asks      []string
	conflicts []string
}

// runCensus runs steps on the census of replica "a" among 6 buckets on 2 s Leases.
func runCensus(t *testing.T, steps []censusStep) {
	t.Helper()
	c := NewCensus("a", 6, 2*time.Second)
	for i, s := range steps {
		at := t0.Add(s.at)
		if got := c.Look(at, s.leases); got != s.share {
			t.Errorf("step %d: got share %d, want %d", i, got, s.share)
		}
		var asks []string
		for lease, ok := c.Ask(); ok; lease, ok = c.Ask() {
			asks = append(asks, lease)
			if !slices.Contains(s.conflicts, lease) {
				c.Asked(at, lease)
			}
		}
		if !slices.Equal(asks, s.asks) {
			t.Errorf("step %d: got asks %v, want %v", i, asks, s.asks)
		}
	}
}

// leases returns the Leases l0, l1, … held by holders[i], renewed at renew.
func leases(renew time.Duration, holders ...string) []LeaseSeen {
	out := make([]LeaseSeen, len(holders))
	for i, h := range holders {
		out[i] = LeaseSeen{Name: "l" + string(rune('0'+i)), Holder: h, Renew: t0.Add(renew)}
	}
	return out
}

func TestCensusShareAndAsks(t *testing.T) {
	runCensus(t, []censusStep{
		// b holds 5, c 1: three live replicas, a share of 2. a asks b twice: b has 5 ≥ 0+0+2,
		// then 4 ≥ 0+1+2.
		{at: 0, leases: leases(0, "b", "b", "b", "b", "b", "c"), share: 2, asks: []string{"l0", "l1"}},
		// Asked already: the requests stand.
		{at: 250 * ms, leases: leases(250*ms, "b", "b", "b", "b", "b", "c"), share: 2},
		// b granted l0 (it names a now) and l1's request lapsed after LeaseDuration: a asks
		// again, one more (b has 4 ≥ 1+0+2, then 3 < 1+1+2).
		{at: 2500 * ms, leases: leases(2500*ms, "a", "b", "b", "b", "b", "c"), share: 2, asks: []string{"l1"}},
		// b's Leases stop changing while a's and c's go on: once LeaseDuration has passed
		// since a saw them change, b is not live, and a and c share 6.
		{at: 3000 * ms, leases: renewedBy(2500*ms, 3000*ms, "a", "b", "b", "b", "b", "c"), share: 2},
		{at: 4499 * ms, leases: renewedBy(2500*ms, 4499*ms, "a", "b", "b", "b", "b", "c"), share: 2},
		{at: 4500 * ms, leases: renewedBy(2500*ms, 4500*ms, "a", "b", "b", "b", "b", "c"), share: 3},
	})
}

// renewedBy is leases with b's renewed at stale and the others' at fresh.
func renewedBy(stale, fresh time.Duration, holders ...string) []LeaseSeen {
	out := leases(fresh, holders...)
	for i := range out {
		if out[i].Holder == "b" {
			out[i].Renew = t0.Add(stale)
		}
	}
	return out
}

func TestCensusLiveness(t *testing.T) {
	withRequest := leases(0, "b", "b", "b", "b", "b", "b")
	withRequest[4].Requester = "d" // d asked b for a bucket: it is live
	runCensus(t, []censusStep{
		// a, b and d: a share of 2. b has 6 ≥ 0+2, then 5: a asks b for l0 and l1.
		{at: 0, leases: withRequest, share: 2, asks: []string{"l0", "l1"}, conflicts: []string{"l0"}},
		// l0 met a conflict: not asked. The requester of l4 is still counted (the Lease has
		// not changed for LeaseDuration), b still holds 6 ≥ 0+1+2: l0 again.
		{at: 250 * ms, leases: withRequest, share: 2, asks: []string{"l0"}},
	})
}

func TestCensusBusiestByNameOnTies(t *testing.T) {
	runCensus(t, []censusStep{
		{at: 0, leases: leases(0, "c", "c", "b", "b", "a", "d"), share: 2},
		// a holds 1; the busiest, b and c with 2, have fewer than 1+2: nobody to ask.
		{at: 250 * ms, leases: leases(250*ms, "c", "c", "c", "b", "b", "b"), share: 2, asks: []string{"l3", "l0"}},
	})
}

// TestRestraint steps through the refusals of a campaign below and at its share, and the
// grace after which a free bucket is taken anyway.
func TestRestraint(t *testing.T) {
	const grace = 750 * ms
	var r Restraint
	for i, s := range []struct {
		at                 time.Duration
		record             string
		requestedByAnother bool
		holding, share     int
		want               bool
	}{
		{0, "free", false, 1, 2, true},                 // below the share
		{250 * ms, "free", false, 2, 2, false},         // at the share: the first refusal
		{500 * ms, "free", true, 1, 2, false},          // asked for by another: refused
		{999 * ms, "free", false, 2, 2, false},         // grace not over
		{1000 * ms, "free", false, 2, 2, true},         // unchanged for the grace since +250 ms
		{1250 * ms, "changed", false, 2, 2, false},     // the Lease changed: the wait starts again
		{1250*ms + grace, "changed", true, 2, 2, true}, // the grace overrides a request too
	} {
		if got := r.Allows(t0.Add(s.at), []byte(s.record), s.requestedByAnother, s.holding, s.share, grace); got != s.want {
			t.Errorf("step %d: got %v, want %v", i, got, s.want)
		}
	}
}

// TestCensusGrantedRequest: a request granted (its Lease names this replica) no longer counts
// as one standing, so that a replica that lost another bucket meanwhile asks again at once.
func TestCensusGrantedRequest(t *testing.T) {
	runCensus(t, []censusStep{
		// a holds 1, b 4, c 1: a share of 2; a asks b (4 ≥ 1+0+2) for its first Lease.
		{at: 0, leases: leases(0, "a", "b", "b", "b", "b", "c"), share: 2, asks: []string{"l1"}},
		// b granted l1 but took l0: a holds 1 again, and asks b (4 ≥ 1+0+2) once more.
		{at: 500 * ms, leases: leases(500*ms, "b", "a", "b", "b", "b", "c"), share: 2, asks: []string{"l0"}},
	})
}

// members returns the member Leases of replicas, renewed at renew.
func members(renew time.Duration, replicas ...string) []LeaseSeen {
	out := make([]LeaseSeen, len(replicas))
	for i, r := range replicas {
		out[i] = LeaseSeen{Name: "m-" + r, Holder: r, Renew: t0.Add(renew), Member: true}
	}
	return out
}

// TestCensusMembers: a replica that announces itself with a member Lease is live while the
// Lease changes, whether it holds buckets or not; a member Lease holds no bucket; one left
// unchanged for two LeaseDurations is reported departed, and one emptied counts nobody.
func TestCensusMembers(t *testing.T) {
	c := NewCensus("a", 6, 2*time.Second)
	steps := []struct {
		at       time.Duration
		leases   []LeaseSeen
		share    int
		departed []string
	}{
		// A joint start: nothing held, three members: a share of 2 each.
		{0, members(0, "a", "b", "c"), 2, nil},
		// b holds 5 buckets and announces itself: counted once; its member Lease holds none.
		{250 * ms, append(leases(250*ms, "b", "b", "b", "b", "b", "c"), members(250*ms, "a", "b")...), 2, nil},
		// c stops renewing its member Lease (and holds nothing): live until LeaseDuration has
		// passed since a saw it change.
		{1999 * ms, append(members(1999*ms, "a", "b"), members(0, "c")...), 2, nil},
		{2000 * ms, append(members(2000*ms, "a", "b"), members(0, "c")...), 3, nil},
		// Two LeaseDurations unchanged: departed, to be deleted.
		{3999 * ms, append(members(3999*ms, "a", "b"), members(0, "c")...), 3, nil},
		{4000 * ms, append(members(4000*ms, "a", "b"), members(0, "c")...), 3, []string{"m-c"}},
		// b empties its member Lease as it leaves: nobody is counted for it.
		{4250 * ms, append(members(4250*ms, "a"), LeaseSeen{Name: "m-b", Renew: t0.Add(4250 * ms), Member: true}), 6, nil},
	}
	for i, s := range steps {
		if got := c.Look(t0.Add(s.at), s.leases); got != s.share {
			t.Errorf("step %d: got share %d, want %d", i, got, s.share)
		}
		if got := c.Departed(); !slices.Equal(got, s.departed) {
			t.Errorf("step %d: got departed %v, want %v", i, got, s.departed)
		}
	}
}

// TestCensusAsksOnlyWhenAllHeld: a replica short of its share takes a free bucket rather
// than ask another replica for one, as replicas starting together would (each asking for the
// buckets the quickest took while others were still free).
func TestCensusAsksOnlyWhenAllHeld(t *testing.T) {
	runCensus(t, []censusStep{
		// a and b: a share of 3; b holds 5, one is free: a acquires that one, and asks nothing.
		{at: 0, leases: leases(0, "b", "b", "b", "b", "b", ""), share: 3},
		// A bucket not yet created is free too.
		{at: 250 * ms, leases: leases(250*ms, "b", "b", "b", "b", "b"), share: 3},
		// Every bucket held: a asks b for two (5 ≥ 1+0+2, 4 ≥ 1+1+2).
		{at: 500 * ms, leases: leases(500*ms, "b", "b", "b", "b", "b", "a"), share: 3, asks: []string{"l0", "l1"}},
	})
}
