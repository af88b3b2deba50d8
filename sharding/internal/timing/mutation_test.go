package timing

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A deliberate bug in each rule, which the step tables must catch. Each is an exact edit of
// this package's source, built in with go test's -overlay at test time, as the library's
// mutation table does (stress/internal/mutation): the source holds no trace of them.
type bug struct {
	name     string
	file     string
	old, new string // old must occur once in file
	caughtBy string // the test that must fail
}

var bugs = []bug{
	{"window-from-last-write", "hold.go", "if !bytes.Equal(record, h.record) {", "if true || !bytes.Equal(record, h.record) {", "TestHoldWindowCountsFromFirstWrite"},
	{"acquisition-continues-tenure", "hold.go", "old.Number == 0 || h.acquiring ||", "old.Number == 0 ||", "TestTenureRule"},
	{"late-answer-continues-tenure", "hold.go", " || !now.Before(old.Until) {", " {", "TestTenureRule"},
	{"campaign-end-ignored", "hold.go", "func (h *Hold) End() { h.ended = true }", "func (h *Hold) End() {}", "TestTenureRule"},
	{"never-open-tenure-reported", "hold.go", "if !h.ended && old.opened() {", "if !h.ended && old.Number != 0 {", "TestTenureRule"},
	{"renew-time-goes-back", "hold.go", "if wall.Before(h.lastRenew) {", "if false {", "TestRenewTimeNeverGoesBack"},
	{"held-in-any-tenure", "hold.go", "if n == 0 || n != t.Number {", "if n == 0 {", "TestTenureHeldAndLapsed"},
	{"keys-end-at-window", "hold.go", "return !now.Before(t.KeysEnd)", "return !now.Before(t.Until)", "TestTenureHeldAndLapsed"},
	{"window-without-drift", "durations.go", "float64(d.LeaseDuration) / (1 + d.MaxClockDrift)", "float64(d.LeaseDuration)", "TestDurations"},
	{"budget-without-retry", "durations.go", "d.HoldWindow() - d.RenewDeadline - d.RetryPeriod", "d.HoldWindow() - d.RenewDeadline", "TestDurations"},
	{"no-drain-check", "durations.go", "case d.DrainBudget() <= 0:", "case false:", "TestCheck"},
	{"renew-deadline-of-a-second", "durations.go", "d.RenewDeadline <= time.Second:", "d.RenewDeadline < time.Second:", "TestCheck"},
	{"stale-holder-live", "census.go", "fresh := now.Sub(view.changedAt) < c.leaseDuration", "fresh := now.Sub(view.changedAt) <= c.leaseDuration", "TestCensusShareAndAsks"},
	{"requester-not-live", "census.go", "c.counts[l.Requester] += 0", "_ = 0", "TestCensusLiveness"},
	{"ask-one-short", "census.go", "c.counts[busiest] < c.mine+len(c.asked)+2", "c.counts[busiest] < c.mine+len(c.asked)+1", "TestCensusBusiestByNameOnTies"},
	{"granted-request-kept", "census.go", "if now.After(until) || c.views[name].holder == c.self {", "if now.After(until) {", "TestCensusGrantedRequest"},
	{"busiest-by-chance", "census.go", "(c.counts[holder] == c.counts[busiest] && holder < busiest)", "(c.counts[holder] == c.counts[busiest] && holder > busiest)", "TestCensusBusiestByNameOnTies"},
	{"member-not-live", "census.go", "c.counts[l.Holder] += 0 // a replica that announces itself is live", "_ = 0", "TestCensusMembers"},
	{"member-holds-a-bucket", "census.go", "if l.Member {", "if false && l.Member {", "TestCensusMembers"},
	{"member-departed-too-soon", "census.go", "now.Sub(view.changedAt) >= memberExpiry*c.leaseDuration", "now.Sub(view.changedAt) >= c.leaseDuration", "TestCensusMembers"},
	{"asks-with-free-buckets", "census.go", "if held < c.buckets {", "if false {", "TestCensusAsksOnlyWhenAllHeld"},
	{"no-grace", "census.go", "if !r.refused.IsZero() && now.Sub(r.refused) >= grace {", "if false {", "TestRestraint"},
	{"grace-survives-a-change", "census.go", "if r.refused.IsZero() || !bytes.Equal(record, r.refusedAt) {", "if r.refused.IsZero() || false && !bytes.Equal(record, r.refusedAt) {", "TestRestraint"},
	{"request-ignored", "census.go", "if !requestedByAnother && holding < share {", "if holding < share {", "TestRestraint"},
}

// mutationVariable turns TestDeliberateBugs on: it builds the package's tests once per bug.
const mutationVariable = "SHARDING_MUTATION"

// TestDeliberateBugs builds each bug into the package and requires the test named for it to
// fail.
func TestDeliberateBugs(t *testing.T) {
	if os.Getenv(mutationVariable) == "" {
		t.Skipf("builds the package's tests once per bug; %s=1 runs it", mutationVariable)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bugs {
		t.Run(b.name, func(t *testing.T) {
			source, err := os.ReadFile(filepath.Join(dir, b.file))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(source), b.old); n != 1 {
				t.Fatalf("%q occurs %d times in %s, not once: update the bug to the code as it is", b.old, n, b.file)
			}
			tmp := t.TempDir()
			mutant := filepath.Join(tmp, b.file)
			if err := os.WriteFile(mutant, []byte(strings.Replace(string(source), b.old, b.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(dir, b.file): mutant}})
			overlayPath := filepath.Join(tmp, "overlay.json")
			if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "test", "-count=1", "-overlay", overlayPath, "-run", "^"+b.caughtBy+"$", ".")
			cmd.Env = append(os.Environ(), mutationVariable+"=")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("%s passes with the bug built in", b.caughtBy)
			}
			if !strings.Contains(string(out), "--- FAIL: "+b.caughtBy) {
				t.Fatalf("%s did not fail by a test; go test said:\n%s", b.caughtBy, out)
			}
		})
	}
}
