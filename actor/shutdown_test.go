package actor

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/actorqueue/workqueue/limiter"
)

// TestShutdownIsOrderedWithWhatFollowsTheFlag: the stopping flag rises once the shutdown
// command is in the mailbox, not before. A caller who sees ShuttingDown() == true and then
// calls AddRateLimited with no wait is applied after the shutdown, so the item is dropped, as
// in client-go. Were the flag raised before the command went in, the AddRateLimited could land
// ahead of it and the item be queued after ShuttingDown said it would not be.
func TestShutdownIsOrderedWithWhatFollowsTheFlag(t *testing.T) {
	q := newQueue(Config[string]{}) // the owner is not running: the test turns it by hand
	noWait := q.Adopt("test", limiter.RateLimiter[string](limiter.NewExponential[string](0, 0)), limiter.Retries[string]{})
	assert.False(t, q.ShuttingDown())

	q.send(command[string]{op: opShutDown}) // ShutDown's command, without waiting for the answer
	assert.True(t, q.ShuttingDown(), "the flag is up once the command is in")
	q.AddRateLimited("b", noWait)

	var a alarm
	q.turn(&a)
	assert.Equal(t, 0, q.fifo.Len(), "b was added after the shutdown")
	assert.Equal(t, 1, noWait.NumRequeues("b"), "the failure still counts")
}

// TestAbandonLeavesABubblesQueueAlone: a cleanup runs outside every synctest bubble, where
// touching a bubble's channels ends the process. Abandon, called from there, does nothing to a
// queue built in a bubble (which the bubble reports if it is left running), and shuts down one
// built outside.
func TestAbandonLeavesABubblesQueueAlone(t *testing.T) {
	abandon := make(chan *Queue[string])
	abandoned := make(chan struct{})
	go func() { // outside the bubble, as a cleanup is
		for q := range abandon {
			q.Abandon()
			abandoned <- struct{}{}
		}
	}()
	defer close(abandon)

	synctest.Test(t, func(t *testing.T) {
		q := New(Config[string]{})
		q.Add("a") // the owner sleeps after this, on a channel of the bubble
		synctest.Wait()
		abandon <- q
		<-abandoned
		assert.False(t, q.ShuttingDown())
		q.ShutDown()
	})

	q := New(Config[string]{})
	abandon <- q
	<-abandoned
	<-q.exited
	assert.True(t, q.ShuttingDown())
}

// A panic kept for the next caller reaches a ShutDownWithDrainContext that its context cut
// short: ending the drain answers the drain's command, which carries the panic. The caller
// then raises it once the owner has exited.
func TestADrainCutShortRaisesThePanicKeptForTheNextCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		storage := &failingStorage{}
		q := New(Config[string]{Storage: storage})
		q.Add("busy")
		q.Get() // being processed, so the drain waits for it
		q.AddAfter("later", time.Second, nil)
		synctest.Wait()
		storage.failing.Store(true) // the delayed add will fail in the owner, with no caller
		time.Sleep(time.Second)
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		assert.PanicsWithValue(t, "push failed", func() { _, _ = q.ShutDownWithDrainContext(ctx) })
		select {
		case <-q.exited:
		default:
			t.Error("ShutDownWithDrainContext raised its panic before the owner exited")
		}
	})
}
