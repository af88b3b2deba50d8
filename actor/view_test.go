package actor

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue/delay"
)

// puts returns how many commands have been put in q's mailbox.
func puts[T comparable](q *Queue[T]) uint64 {
	q.mailbox.mu.Lock()
	defer q.mailbox.mu.Unlock()
	return q.mailbox.puts
}

// TestLenAndSupersededAnswerFromTheView: once the owner has published its view and applied every
// command put, Len and Superseded answer from it without a command, counting the takes from ready
// since; a command put since, or a queue with a custom storage, makes them ask.
func TestLenAndSupersededAnswerFromTheView(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config[string]{})
		defer q.ShutDown()
		q.Add("a")
		q.Add("b")
		assert.Equal(t, 2, q.Len(), "the first Len asks")
		assert.False(t, q.Superseded("a"), "the first Superseded asks")
		synctest.Wait() // the owner has published its view, keeping the superseded items, and sleeps
		before := puts(q)
		for range 3 {
			assert.Equal(t, 2, q.Len())
			assert.False(t, q.Superseded("a"))
		}
		item, _ := q.Get() // a take: no command either
		assert.Equal(t, 1, q.Len(), "the take counts at once")
		assert.Equal(t, before, puts(q), "Len or Superseded sent a command while the view was exact")

		q.Add(item) // put, and maybe not yet applied: then Superseded asks
		assert.True(t, q.Superseded(item), "an add that returned was missed")
		synctest.Wait()
		before = puts(q)
		assert.True(t, q.Superseded(item))
		assert.Equal(t, 1, q.Len())
		assert.Equal(t, before, puts(q), "Len or Superseded sent a command while the view was exact")
		// Whether the owner applies an add before the next Superseded is a race; the view must
		// refuse in the case it loses. Count one command more as sent, the owner asleep: fresh
		// must say the view is not exact.
		q.mailbox.sent.Add(1)
		_, _, exact := q.fresh()
		q.mailbox.sent.Add(^uint64(0))
		assert.False(t, exact, "the view answered with a command sent and not applied")
		q.Done(item)
		assert.Equal(t, 2, q.Len())

		custom := New(Config[string]{Storage: &pickyStorage{}})
		defer custom.ShutDown()
		custom.Add("a")
		synctest.Wait()
		before = puts(custom)
		assert.Equal(t, 1, custom.Len())
		synctest.Wait()
		assert.Equal(t, 1, custom.Len())
		assert.Equal(t, before+2, puts(custom), "a custom storage's Len was answered without calling it")
	})
}

// TestDebounceTimesWithoutMetrics: an unnamed queue reads no clock for its adds but for a
// debounce window, which needs the instant of each add.
func TestDebounceTimesWithoutMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Config[string]{Debounce: delay.Debounce{Window: 10 * time.Millisecond}})
		defer q.ShutDown()
		time.Sleep(time.Hour) // far from the queue's origin
		q.Add("a")
		synctest.Wait()
		_, _, _, _, held, _, _ := q.Snapshot()
		assert.Equal(t, 1, held)
		time.Sleep(10 * time.Millisecond)
		synctest.Wait() // the alarm has fired too
		assert.Equal(t, 1, q.Len(), "the window did not end 10 ms after the add")
	})
}
