package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/trace"
	"testing"
	"testing/synctest"
	"time"

	xtrace "golang.org/x/exp/trace"
)

// The trace log category and messages that mark the measured window.
const (
	logCategory = "bench-wakeups"
	logBubble   = "bubble"
	logIdle     = "idle"
	logEnd      = "end"
)

// synctestWait is the reason an execution trace gives for the wait of synctest.Test's
// goroutine (outside the bubble) until every goroutine in the bubble is blocked; it then
// advances the fake clock and fires the timers that fall due, and waits again. The test
// goroutine's synctest.Wait gives the same reason.
const synctestWait = "synctest"

// windowOffset is how long after creating the queues the measured window starts.
const windowOffset = time.Millisecond

// IdleWakeups returns how many times count idle queues of kind k wake up in window, scaled to
// one minute: a measure of the timers they run while nobody uses them.
//
// The method: inside a testing/synctest bubble, whose clock only moves when every goroutine in
// it is blocked, the test goroutine creates the queues, waits until they are all blocked and
// sleeps for window, starting 1 ms later (off any period the queues count from). The fake
// clock then jumps from timer to timer, and the sleep ends after window has passed for every
// timer in the bubble, in microseconds of real time. An execution trace (runtime/trace)
// records the whole bubble. The count is the number of times, during the sleep, that the
// bubble's clock (the goroutine that fires its timers) woke a goroutine started by the test
// goroutine (directly or not), or created one (a time.AfterFunc firing). Nothing else runs in
// the bubble, so each such event is a queue waking on its own. Other wakes are not counted: a
// goroutine that one of the queues' goroutines woke (a channel send, or a mutex handed over
// when two timers fire at the same instant) was woken by a wake-up already counted, and one
// that the garbage collector stopped and resumed (to scan its stack, or while it called
// runtime.GC) was awake already.
//
// It fails t if tracing is already on, as it is under go test -trace.
func IdleWakeups(t *testing.T, impl Impl, k Kind, count int, window time.Duration) float64 {
	buf := traced(t, func() {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			trace.Log(ctx, logCategory, logBubble)
			queues := make([]ShutDowner, count)
			for i := range queues {
				queues[i] = impl.NewKind(k)
			}
			// Start the window off the queues' own beat, so that no timer of theirs falls due
			// at the instant the window ends, where the trace might order it on either side.
			time.Sleep(windowOffset)
			synctest.Wait()
			trace.Log(ctx, logCategory, logIdle)
			time.Sleep(window)
			trace.Log(ctx, logCategory, logEnd)
			for _, q := range queues {
				q.ShutDown()
			}
		})
	})
	wakeups, err := countWakeups(buf)
	if err != nil {
		t.Fatalf("reading the execution trace: %v", err)
	}
	for _, w := range wakeups {
		t.Log(w) // shown when a test fails: which goroutine woke, and what woke it
	}
	return float64(len(wakeups)) * float64(time.Minute) / float64(window)
}

// traced runs f with the execution tracer on and returns the trace. It stops the tracer even
// if f fails t.
func traced(t *testing.T, f func()) *bytes.Buffer {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatalf("starting the execution trace: %v", err)
	}
	defer trace.Stop()
	f()
	return &buf
}

// countWakeups reads an execution trace made by IdleWakeups and returns the wake-ups between
// the idle and end marks (see IdleWakeups), each described in a line.
func countWakeups(r io.Reader) ([]string, error) {
	reader, err := xtrace.NewReader(r)
	if err != nil {
		return nil, err
	}
	var (
		driver  = xtrace.NoGoroutine     // the bubble's main goroutine: the test goroutine
		clock   = xtrace.NoGoroutine     // the goroutine that runs the bubble and fires its timers
		started = map[xtrace.GoID]bool{} // goroutines started by the driver, transitively
		idle    bool
		wakeups []string
	)
	for {
		ev, err := reader.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch ev.Kind() {
		case xtrace.EventLog:
			if ev.Log().Category != logCategory {
				continue
			}
			switch ev.Log().Message {
			case logBubble:
				driver = ev.Goroutine()
			case logIdle:
				idle = true
			case logEnd:
				idle = false
			}
		case xtrace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != xtrace.ResourceGoroutine {
				continue
			}
			id, by := st.Resource.Goroutine(), ev.Goroutine()
			from, to := st.Goroutine()
			switch {
			case to == xtrace.GoWaiting && st.Reason == synctestWait && id != driver && !started[id]:
				clock = id // synctest.Test's goroutine, waiting for the bubble to block
			case driver == xtrace.NoGoroutine:
				// before the bubble: nothing to count
			case from == xtrace.GoNotExist && (by == driver || started[by]):
				started[id] = true
			case !idle || by != clock:
				// only the bubble's clock wakes a queue on its own account
			case from == xtrace.GoNotExist:
				started[id] = true // a time.AfterFunc firing
				wakeups = append(wakeups, describe(ev, "created"))
			case started[id] && from == xtrace.GoWaiting && to == xtrace.GoRunnable:
				wakeups = append(wakeups, describe(ev, "woken"))
			}
		}
	}
	if driver == xtrace.NoGoroutine {
		return nil, fmt.Errorf("the trace has no %q mark", logBubble)
	}
	if clock == xtrace.NoGoroutine {
		return nil, fmt.Errorf("no goroutine in the trace waits for %q: the runtime's reason has changed", synctestWait)
	}
	return wakeups, nil
}

// describe says which goroutine a state transition created or woke, and when, in the trace's
// clock.
func describe(ev xtrace.Event, what string) string {
	return fmt.Sprintf("goroutine %d %s by goroutine %d at %v", ev.StateTransition().Resource.Goroutine(), what, ev.Goroutine(), ev.Time())
}
