package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// The checks run on records made up here, so that each is seen to catch what it is for and
// to pass what it must pass. They need no API server.

const ms = time.Millisecond

func start(replica, key string, gen int, at time.Duration) record.Event {
	return record.Event{Kind: record.Start, Replica: replica, Key: key, Gen: gen, At: at}
}

func end(replica, key string, gen int, at time.Duration, cancelled bool) record.Event {
	return record.Event{Kind: record.End, Replica: replica, Key: key, Gen: gen, At: at, Cancelled: cancelled}
}

func held(replica string, at time.Duration, buckets ...int) record.Event {
	return record.Event{Kind: record.Held, Replica: replica, At: at, Buckets: buckets}
}

func write(replica, key string, at time.Duration) record.Event {
	return record.Event{Kind: record.Write, Replica: replica, Key: key, At: at}
}

func TestOverlaps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []record.Event
		deaths map[string]time.Duration
		want   []time.Duration // the overlaps' lengths, in order
	}{
		{"one replica, one after the other", []record.Event{
			start("a", "k", 1, 0), write("a", "k", 10*ms), end("a", "k", 1, 10*ms, false),
			start("a", "k", 2, 10*ms), write("a", "k", 20*ms), end("a", "k", 2, 20*ms, false),
		}, nil, nil},
		{"two replicas touching", []record.Event{
			start("a", "k", 1, 0), write("a", "k", 10*ms), end("a", "k", 1, 10*ms, false),
			start("b", "k", 2, 10*ms), write("b", "k", 20*ms), end("b", "k", 2, 20*ms, false),
		}, nil, nil},
		{"two replicas, different keys at once", []record.Event{
			start("a", "k", 1, 0), start("b", "j", 1, 0), write("a", "k", 10*ms), write("b", "j", 10*ms),
			end("a", "k", 1, 10*ms, false), end("b", "j", 1, 10*ms, false),
		}, nil, nil},
		{"the later one starts before the earlier one's last write", []record.Event{
			start("a", "k", 1, 0), write("a", "k", 5*ms), start("b", "k", 2, 7*ms), write("a", "k", 10*ms),
			end("a", "k", 1, 10*ms, false), write("b", "k", 20*ms), end("b", "k", 2, 20*ms, false),
		}, nil, []time.Duration{3 * ms}},
		{"one inside the other", []record.Event{
			start("a", "k", 1, 0), start("b", "k", 1, 2*ms), write("b", "k", 5*ms), end("b", "k", 1, 5*ms, false),
			write("a", "k", 10*ms), end("a", "k", 1, 10*ms, false),
		}, nil, []time.Duration{3 * ms}},
		{"a reconcile that wrote nothing, started inside another's span", []record.Event{
			start("a", "k", 1, 0), start("b", "k", 1, 4*ms), end("b", "k", 1, 5*ms, true),
			write("a", "k", 10*ms), end("a", "k", 1, 10*ms, false),
		}, nil, []time.Duration{6 * ms}},
		{"a reconcile that ends, frozen, after another started, having written before", []record.Event{
			start("a", "k", 1, 0), write("a", "k", 3*ms), start("b", "k", 2, 5*ms), write("b", "k", 8*ms),
			end("b", "k", 2, 8*ms, false), end("a", "k", 1, 20*ms, true),
		}, nil, nil},
		{"a reconcile that wrote nothing and ends after another started", []record.Event{
			start("a", "k", 1, 0), start("b", "k", 2, 5*ms), write("b", "k", 8*ms), end("b", "k", 2, 8*ms, false),
			end("a", "k", 1, 20*ms, true),
		}, nil, nil},
		{"a killed reconcile's writes count until its death", []record.Event{
			start("a", "k", 1, 0), write("a", "k", 45*ms), start("b", "k", 1, 40*ms), write("b", "k", 60*ms), end("b", "k", 1, 60*ms, false),
		}, map[string]time.Duration{"a": 50 * ms}, []time.Duration{5 * ms}},
		{"a killed reconcile whose last write came before the other started", []record.Event{
			start("a", "k", 1, 0), write("a", "k", 30*ms), start("b", "k", 1, 40*ms), write("b", "k", 60*ms), end("b", "k", 1, 60*ms, false),
		}, map[string]time.Duration{"a": 50 * ms}, nil},
		{"three replicas", []record.Event{
			start("a", "k", 1, 0), start("b", "k", 1, 5*ms), start("c", "k", 1, 8*ms),
			write("a", "k", 10*ms), end("a", "k", 1, 10*ms, false),
			write("b", "k", 20*ms), end("b", "k", 1, 20*ms, false),
			write("c", "k", 30*ms), end("c", "k", 1, 30*ms, false),
		}, nil, []time.Duration{5 * ms, 2 * ms, 12 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ivs, err := intervals(tc.events, tc.deaths)
			if err != nil {
				t.Fatal(err)
			}
			var got []time.Duration
			for _, o := range overlaps(ivs) {
				got = append(got, o.by)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("overlaps %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIntervalsRejectsMalformedRecords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []record.Event
	}{
		{"a key started twice on one replica", []record.Event{start("a", "k", 1, 0), start("a", "k", 2, ms)}},
		{"an end without a start", []record.Event{end("a", "k", 1, ms, false)}},
		{"a write outside a reconcile", []record.Event{start("a", "k", 1, 0), end("a", "k", 1, ms, false), write("a", "k", 2*ms)}},
		{"a reconcile that never ended on a replica that did not die", []record.Event{start("a", "k", 1, 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := intervals(tc.events, nil); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestLost(t *testing.T) {
	events := []record.Event{
		start("a", "done", 3, 0), end("a", "done", 3, ms, false),
		start("a", "stale", 1, 0), end("a", "stale", 1, ms, false),
		start("a", "cancelled", 2, 0), end("a", "cancelled", 2, ms, true),
		start("a", "killed", 2, 0),
	}
	final := map[string]int{"done": 3, "stale": 2, "cancelled": 2, "killed": 2, "never": 1}
	if got, want := lost(events, final), []string{"cancelled", "killed", "never", "stale"}; !slices.Equal(got, want) {
		t.Errorf("lost %v, want %v", got, want)
	}
}

func TestBalancedSince(t *testing.T) {
	replicas := []string{"a", "b"}
	events := []record.Event{
		held("a", 0, 0, 1, 2, 3),
		held("b", 5*ms),
		held("a", 10*ms, 0, 1, 2), // 3/0: not within one of 2
		held("b", 20*ms, 3),       // 3/1, every bucket once: balanced
		held("a", 30*ms, 0, 1),
		held("b", 40*ms, 3, 2),
	}
	if at, ok := balancedSince(events, replicas, 4, 0); !ok || at != 20*ms {
		t.Errorf("balancedSince(0) = %v, %v; want 20ms, true", at, ok)
	}
	if at, ok := balancedSince(events, replicas, 4, 25*ms); !ok || at != 25*ms {
		t.Errorf("balancedSince(25ms) = %v, %v; want 25ms (balanced already), true", at, ok)
	}
	doubled := append(slices.Clone(events[:2]), held("b", 6*ms, 0, 1))
	if _, ok := balancedSince(doubled, replicas, 4, 0); ok {
		t.Error("balanced with buckets 0 and 1 held twice")
	}
	if _, ok := balancedSince(events[:3], replicas, 4, 0); ok {
		t.Error("balanced with bucket 3 held by none")
	}
}

func TestServed(t *testing.T) {
	// Keys of buckets 0 and 1 of 2, found by hashing.
	var k0, k1 string
	for i := 0; k0 == "" || k1 == ""; i++ {
		key := "ns/" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if bucketOf(key, 2) == 0 && k0 == "" {
			k0 = key
		} else if bucketOf(key, 2) == 1 && k1 == "" {
			k1 = key
		}
	}
	events := []record.Event{
		start("b", k0, 1, 5*ms),  // before the crash: not counted
		start("a", k1, 1, 15*ms), // by the dead replica: not counted
		start("b", k0, 1, 20*ms),
		start("c", k0, 1, 30*ms),
	}
	got := served(events, "a", []int{0, 1}, 2, 10*ms)
	if len(got) != 1 || got[0] != 20*ms {
		t.Errorf("served = %v, want bucket 0 at 20ms only", got)
	}
}

func TestEarlyTakeovers(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(1000, 0).Add(time.Duration(ms) * time.Millisecond) }
	versions := []leaseVersion{
		{bucket: 0, holder: "a", acquire: at(0), renew: at(0)},
		{bucket: 1, holder: "a", acquire: at(0), renew: at(0)},
		{bucket: 0, holder: "a", acquire: at(0), renew: at(500)},     // the same record as the first
		{bucket: 0, holder: "b", acquire: at(2300), renew: at(2300)}, // 2.3 s after the record's first renewal
		{bucket: 1, holder: "a", acquire: at(0), renew: at(900)},
		{bucket: 1, holder: "", acquire: at(1000), renew: at(1000)},  // released
		{bucket: 1, holder: "c", acquire: at(1100), renew: at(1100)}, // not a takeover
		{bucket: 1, holder: "c", acquire: at(1100), renew: at(1300)}, // the same record
		{bucket: 1, holder: "c", acquire: at(1100), renew: at(2050)}, // a new one
		{bucket: 1, holder: "c", acquire: at(1100), renew: at(2900)}, // the same record
		{bucket: 1, holder: "b", acquire: at(3800), renew: at(3800)}, // 1.75 s after it
	}
	all := takeovers(versions)
	if len(all) != 2 || all[0].from != "a" || all[0].to != "b" || all[1].from != "c" {
		t.Fatalf("takeovers %+v", all)
	}
	if got := all[0].acquired.Sub(all[0].renewed); got != 2300*time.Millisecond {
		t.Errorf("bucket 0 taken %v after a's record first appeared, want 2.3s (from its first renewal, not its last)", got)
	}
	got := early(all, 1800*time.Millisecond)
	if len(got) != 1 || got[0].bucket != 1 || got[0].acquired.Sub(got[0].renewed) != 1750*time.Millisecond {
		t.Errorf("early %+v, want bucket 1 taken 1.75s after its last record first appeared", got)
	}
}

func TestOverruns(t *testing.T) {
	handover := func(replica string, at time.Duration) record.Event {
		return record.Event{Kind: record.HandedOver, Replica: replica, At: at, Overran: 1}
	}
	events := []record.Event{
		handover("a", 1000*ms),                                 // a paused within the budget before: explained
		handover("a", 3000*ms),                                 // the pause ended long before: unexplained
		handover("b", 1000*ms),                                 // b never paused: unexplained
		{Kind: record.HandedOver, Replica: "b", At: 2000 * ms}, // nothing overran
	}
	pauses := []pause{{replica: "a", from: 200 * ms, to: 600 * ms}}
	unexplained, explained := overruns(events, pauses, 500*ms)
	if len(explained) != 1 || explained[0].At != 1000*ms || explained[0].Replica != "a" {
		t.Errorf("explained %+v, want a's at 1s", explained)
	}
	if len(unexplained) != 2 || unexplained[0].At != 3000*ms || unexplained[1].Replica != "b" {
		t.Errorf("unexplained %+v, want a's at 3s and b's at 1s", unexplained)
	}
	if _, explained := overruns(events, pauses, 300*ms); len(explained) != 0 {
		t.Errorf("with a 300ms budget the pause ending at 600ms explains %+v; want nothing", explained)
	}
}

func TestLateWrites(t *testing.T) {
	const buckets = 2
	keyOf := func(bucket int) string { // the first key "k<n>" of the bucket
		for n := 0; ; n++ {
			if k := fmt.Sprintf("k%d", n); bucketOf(k, buckets) == bucket {
				return k
			}
		}
	}
	k0, k1 := keyOf(0), keyOf(1)
	at := func(s int) time.Time { return time.Unix(int64(1000+s), 0) }
	versions := []leaseVersion{
		{bucket: 0, holder: "a", acquire: at(0), renew: at(0), seen: 100 * ms},
		{bucket: 0, holder: "a", acquire: at(0), renew: at(0), seen: 600 * ms}, // the same record: a's window counts from 100 ms
		{bucket: 0, holder: "b", acquire: at(3), renew: at(3), seen: 3000 * ms},
		{bucket: 1, holder: "a", acquire: at(0), renew: at(0), seen: 200 * ms},
		{bucket: 1, holder: "a", acquire: at(0), renew: at(2), seen: 2150 * ms}, // a new record
	}
	write := func(replica, key string, at time.Duration) record.Event {
		return record.Event{Kind: record.Write, Replica: replica, Key: key, At: at}
	}
	events := []record.Event{
		write("a", k0, 1800*ms), // within 100 ms + 1.8 s
		write("a", k0, 1950*ms), // late: the later version of the same record moved nothing
		write("b", k0, 3500*ms), // b's own record
		write("c", k0, 5000*ms), // c never held bucket 0: not judged here
		write("a", k1, 2100*ms), // late: the next record came after it
		write("a", k1, 3900*ms), // within 2.15 s + 1.8 s
		write("a", k1, 4000*ms), // late
		{Kind: record.Start, Replica: "a", Key: k1, At: 9999 * ms}, // not a write
	}
	got := lateWrites(events, versions, buckets, 1800*ms)
	var late []string
	for _, lw := range got {
		late = append(late, fmt.Sprintf("%s %s %v until %v", lw.write.Replica, lw.write.Key, lw.write.At, lw.windowEnd))
	}
	want := []string{
		fmt.Sprintf("a %s %v until %v", k0, 1950*ms, 1900*ms),
		fmt.Sprintf("a %s %v until %v", k1, 2100*ms, 2000*ms),
		fmt.Sprintf("a %s %v until %v", k1, 4000*ms, 3950*ms),
	}
	if !slices.Equal(late, want) {
		t.Errorf("late writes\n%v, want\n%v", late, want)
	}
}

// TestLateWritesAfterInterruption: a write is late, whatever the writer's newest record says,
// once the Lease has named another holder or none since its reconcile began; the tenure rule
// of issue 42, judged from the Leases.
func TestLateWritesAfterInterruption(t *testing.T) {
	k := "k0"
	at := func(s int) time.Time { return time.Unix(int64(1000+s), 0) }
	versions := []leaseVersion{
		{bucket: 0, holder: "a", acquire: at(0), renew: at(0), seen: 100 * ms},
		{bucket: 0, holder: "b", acquire: at(3), renew: at(3), seen: 3000 * ms},
		{bucket: 0, holder: "", acquire: at(4), renew: at(4), seen: 3500 * ms},
		{bucket: 0, holder: "a", acquire: at(4), renew: at(4), seen: 3600 * ms}, // a takes it back
	}
	events := []record.Event{
		start("a", k, 1, 1000*ms), write("a", k, 1500*ms), // within a's first tenure
		write("a", k, 3700*ms), // the same reconcile, after b held the bucket: late
		end("a", k, 1, 3700*ms, false),
		start("a", k, 2, 3650*ms), write("a", k, 3700*ms), // begun in the new tenure: fine
		end("a", k, 2, 3700*ms, false),
		start("a", k, 3, 50*ms), write("a", k, 1800*ms), // begun before the watch saw a's record: the window alone judges it
		end("a", k, 3, 1800*ms, false),
	}
	got := lateWrites(events, versions, 1, 1800*ms)
	if len(got) != 1 || got[0].write.At != 3700*ms || got[0].started != 1000*ms || got[0].interrupted == nil || got[0].interrupted.holder != "b" {
		t.Fatalf("late writes %+v, want a's write at 3.7s, its tenure interrupted by b", got)
	}
}

// TestLateWritesHoldingNotSeenYet: a replica takes back a bucket it held before, and writes
// before the watch has delivered its new record: the record of its earlier holding does not
// judge the write (seen under load on kube-apiserver: the watch lagged by 50 ms).
func TestLateWritesHoldingNotSeenYet(t *testing.T) {
	k := "k0"
	at := func(s int) time.Time { return time.Unix(int64(1000+s), 0) }
	versions := []leaseVersion{
		{bucket: 0, holder: "a", acquire: at(0), renew: at(0), seen: 100 * ms},
		{bucket: 0, holder: "", acquire: at(1), renew: at(1), seen: 1000 * ms},  // a released it
		{bucket: 0, holder: "a", acquire: at(3), renew: at(3), seen: 3950 * ms}, // a took it back at 3.85 s
	}
	events := []record.Event{
		start("a", k, 1, 3860*ms), write("a", k, 3911*ms), end("a", k, 1, 3911*ms, false),
	}
	if got := lateWrites(events, versions, 1, 1800*ms); len(got) != 0 {
		t.Errorf("late writes %+v, want none: the write's holding was not seen yet", got)
	}
}

// TestCacheFaults checks the check of sharded caches: a Cached event is a fault unless the
// replica caches exactly the objects of the buckets it has synced.
func TestCacheFaults(t *testing.T) {
	events := []record.Event{
		{Kind: record.Cached, Replica: "r1", Buckets: []int{0, 3}, Count: 8},
		{Kind: record.Cached, Replica: "r2", Buckets: nil, Count: 0},
		{Kind: record.Cached, Replica: "r2", Buckets: []int{1}, Count: 5},    // another bucket's object too
		{Kind: record.Cached, Replica: "r3", Buckets: []int{2, 4}, Count: 7}, // one missing
		{Kind: record.Held, Replica: "r3", Buckets: []int{2}, Count: 99},
	}
	faults := cacheFaults(events, 4)
	if len(faults) != 2 || !strings.HasPrefix(faults[0], "r2 caches 5") || !strings.HasPrefix(faults[1], "r3 caches 7") {
		t.Errorf("cacheFaults = %q; want r2's and r3's", faults)
	}
}
