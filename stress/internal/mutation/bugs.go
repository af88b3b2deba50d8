package mutation

// Bug is a deliberate bug: edits that turn correct library source into source that breaks one
// promise. The library holds no trace of it; the test builds it from the source as it is (see
// Mutate), so a change that moves the code out from under a bug fails the test loudly instead
// of leaving a stale mutant behind.
type Bug struct {
	Name   string // the bug's name in the table of stress/README.md
	Breaks string // what it breaks, one line, for the table
	File   string // the file it edits, relative to the library module's root, with slashes
	Edits  []Edit // applied in order
}

// Edit replaces Old, which must occur exactly once in the file, with New.
type Edit struct {
	Old, New string
}

// Bugs lists every deliberate bug, in the table's row order. Each edit is one line of the file,
// so that a reader sees the bug at a glance; New may hold several statements separated by
// semicolons, which gofmt would split but the compiler takes as they are.
var Bugs = []Bug{
	{
		Name:   "no-dedup",
		Breaks: "an item added twice while waiting is queued twice",
		File:   "queue/state.go",
		Edits: []Edit{
			{"if waits {", "if false && waits {"},                             // the built-in FIFO
			{"if s.waiting.Has(item) {", "if false && s.waiting.Has(item) {"}, // a custom storage
		},
	},
	{
		Name:   "lost-readd",
		Breaks: "an item added while processing is not processed again",
		File:   "queue/state.go",
		Edits:  []Edit{{"f.again, f.readded = true, s.rel(at)", "f.again, f.readded = false, s.rel(at)"}},
	},
	{
		Name:   "early-drain",
		Breaks: "ShutDownWithDrain returns without waiting for processing",
		File:   "actor/shutdown.go",
		Edits:  []Edit{{"if q.idle() {", "if q.idle() || true {"}},
	},
	{
		Name:   "early-delay",
		Breaks: "AddAfter fires at half its delay",
		File:   "actor/commands.go",
		Edits:  []Edit{{"q.clock.Now().Add(delay))", "q.clock.Now().Add(delay/2))"}},
	},
	{
		Name:   "double-requeue",
		Breaks: "Done of an item added again queues it twice",
		File:   "queue/state.go",
		// requeue pushes the item, then looks its slot up again and pushes it once more.
		Edits: []Edit{{"ticket, _ := s.entry(item)", "ticket, _ := s.entry(item); s.push(item, ticket, at); ticket, _ = s.entry(item)"}},
	},
	{
		Name:   "uncapped",
		Breaks: "the exponential limiter ignores its maximum delay",
		File:   "limiter/exponential.go",
		Edits: []Edit{{
			"if backoff >= math.MaxInt64 || time.Duration(backoff) > max {",
			"max = math.MaxInt64; if backoff >= math.MaxInt64 || time.Duration(backoff) > max {",
		}},
	},
	{
		Name:   "unnudged",
		Breaks: "a getter that empties ready leaves the owner asleep with items waiting",
		File:   "actor/get.go",
		Edits:  []Edit{{"q.mailbox.nudge()", ""}},
	},
	{
		Name:   "get-panic-keeps-item",
		Breaks: "a Get whose metric panics leaves its item in processing, with nobody to call Done",
		File:   "actor/handout.go",
		Edits:  []Edit{{"q.core.GiveBack(item, priority, at)", ""}},
	},
	{
		Name:   "async-owner-time",
		Breaks: "with asynchronous metrics, adds and Dones are timed when the owner records them, not at the call",
		File:   "actor/apply.go",
		Edits:  []Edit{{"return q.instantOf(c.at)", "return time.Time{}"}},
	},
	{
		Name:   "groups-ignored",
		Breaks: "a grouped FIFO queue puts every item in one group: no turns, one limit for all",
		File:   "actor/queue.go",
		Edits:  []Edit{{"queue.NewGrouped(q.ownGroup(c.Group), c.MaxPerGroup)", "queue.NewGrouped(func(T) string { return \"\" }, c.MaxPerGroup)"}},
	},
	{
		Name:   "prio-groups-ignored",
		Breaks: "a grouped priority queue puts every item in one group: no turns within a priority",
		File:   "queue/priority/state.go",
		Edits:  []Edit{{"group = s.fair.groupOf(item) // may panic: nothing has changed yet", "group = \"\"; _ = s.fair.groupOf(item)"}},
	},
	{
		Name:   "group-limit-off-by-one",
		Breaks: "every queue hands out one item more of a group than MaxPerGroup: the limit is one rule for both cores",
		File:   "queue/limit.go",
		Edits:  []Edit{{"l.out[name] >= l.limit", "l.out[name] > l.limit"}},
	},
	{
		Name:   "prio-group-limit-across-priorities",
		Breaks: "a priority queue hands out more items of a group than MaxPerGroup once the group has items at two priorities",
		File:   "queue/priority/groups.go",
		Edits:  []Edit{{"if f.limit.Reached(b.name) {", "if false && f.limit.Reached(b.name) {"}},
	},
	{
		Name:   "shutdown-holds",
		Breaks: "a FIFO queue shutting down keeps holding items of a group at its limit, which Get never returns",
		File:   "queue/machine.go",
		Edits:  []Edit{{"m.state.LiftLimits()", ""}},
	},
	{
		Name:   "debounce-no-restart",
		Breaks: "an add of an item waiting out its debounce window does not start the window again",
		File:   "delay/window.go",
		Edits:  []Edit{{"w.due.Set(item, now+w.rule.Wait(now-first))", "if !held { w.due.Set(item, now+w.rule.Wait(now-first)) }"}},
	},
	{
		Name:   "held-not-superseded",
		Breaks: "an item in processing whose add waits out a debounce window is not superseded",
		File:   "queue/superseded.go",
		Edits:  []Edit{{"		f.held = true", "		f.held = false"}},
	},
	{
		Name:   "stale-len",
		Breaks: "Len and Superseded answer from the owner's view with commands still to apply",
		File:   "actor/view.go",
		Edits:  []Edit{{"if applied < q.mailbox.sent.Load() {", "if false && applied < q.mailbox.sent.Load() {"}},
	},
	{
		Name:   "giveup-off-by-one",
		Breaks: "MaxRetries allows one rate-limited requeue more than it says",
		File:   "limiter/retries.go",
		Edits:  []Edit{{"if n > max {", "if n > max+1 {"}},
	},
}
