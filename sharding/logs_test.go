package sharding

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
)

// logLine is one line a logLines recorded.
type logLine struct {
	error bool // logged with Error
	level int  // V level of an Info line
	text  string
}

// logLines is a logr.LogSink that records the lines logged up to its verbosity.
type logLines struct {
	verbosity int
	mu        *sync.Mutex
	lines     *[]logLine
	values    []any
}

func newLogLines(verbosity int) logLines {
	return logLines{verbosity: verbosity, mu: new(sync.Mutex), lines: new([]logLine)}
}

func (l logLines) Init(logr.RuntimeInfo)        {}
func (l logLines) Enabled(level int) bool       { return level <= l.verbosity }
func (l logLines) WithName(string) logr.LogSink { return l }
func (l logLines) WithValues(kv ...any) logr.LogSink {
	l.values = append(append([]any(nil), l.values...), kv...)
	return l
}

func (l logLines) Info(level int, msg string, kv ...any) {
	l.add(logLine{level: level, text: fmt.Sprint(msg, append(l.values, kv...))})
}

func (l logLines) Error(err error, msg string, kv ...any) {
	l.add(logLine{error: true, text: fmt.Sprint(msg, " err=", err, append(l.values, kv...))})
}

func (l logLines) add(line logLine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*l.lines = append(*l.lines, line)
}

// matching returns the lines recorded that match.
func (l logLines) matching(match func(logLine) bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var texts []string
	for _, line := range *l.lines {
		if match(line) {
			texts = append(texts, line.text)
		}
	}
	return texts
}

// TestHealthyElectionLogsNoErrors: three replicas that start together (they race to create
// the Leases and to acquire them), balance (hand-over requests meet renewals), and leave one
// by one (the campaigns stop their electors with writes on their way, answered 100 ms after
// they are applied) log no line at error level, nor one at level 0 that reports an error; the
// races and cancellations are logged at level 4.
func TestHealthyElectionLogsNoErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lines := newLogLines(quietVerbosity)
		c := newCluster(t, 12, 60).defaults()
		c.logger = logr.New(lines)
		a, b, d := c.join("a"), c.join("b"), c.join("c")
		for _, r := range []*replica{a, b, d} {
			r.link.setLate(func() time.Duration { return 100 * time.Millisecond })
		}
		c.churn(40*time.Second, 20*time.Millisecond)
		c.exit(b)
		c.churn(10*time.Second, 20*time.Millisecond)
		c.exit(a)
		c.churn(10*time.Second, 20*time.Millisecond)
		c.finish(d)

		if errs := lines.matching(func(l logLine) bool { return l.error || l.level == 0 && strings.Contains(l.text, "err") }); len(errs) > 0 {
			t.Errorf("%d error lines from a healthy election, first %q", len(errs), errs[:min(3, len(errs))])
		}
		if quiet := lines.matching(func(l logLine) bool { return l.level == quietVerbosity && strings.Contains(l.text, "err") }); len(quiet) == 0 {
			t.Error("no line at level 4 reported a race or a cancellation: the test saw none")
		}
	})
}

// TestElectionFailuresStillLogged: the electors of a replica cut off from the API server log
// its failed Lease requests at error level, as client-go's elector does.
func TestElectionFailuresStillLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lines := newLogLines(0)
		c := newCluster(t, 2, 10).defaults()
		c.logger = logr.New(lines)
		a := c.join("a")
		c.churn(5*time.Second, 50*time.Millisecond)
		a.link.cut.Store(true)
		time.Sleep(c.cfg.RenewDeadline + 2*c.cfg.RetryPeriod)
		a.link.cut.Store(false)
		c.churn(c.cfg.LeaseDuration+3*c.cfg.RetryPeriod, 50*time.Millisecond)
		c.finish(a)
		elector := func(l logLine) bool {
			return l.error && strings.Contains(l.text, "cut off") && strings.Contains(l.text, "[lock ")
		}
		if errs := lines.matching(elector); len(errs) == 0 {
			t.Error("the electors of a replica cut off from the API server logged no error")
		}
	})
}
