package actor

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestStopWhenIsAskedAtEveryHeartbeatOnTheRealClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var asked atomic.Int32
		var stop atomic.Bool
		var forwarded atomic.Int32
		q := New(Config[int]{
			Forward:  func(int) { forwarded.Add(1) },
			StopWhen: func() bool { asked.Add(1); return stop.Load() },
		})
		q.AddAfter(1, time.Hour, nil)
		synctest.Wait()
		asked.Store(0)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		assert.Equal(t, int32(3), asked.Load(), "idle for 30 s: asked every 10 s")
		stop.Store(true)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		assert.True(t, q.ShuttingDown(), "shut itself down at the next heartbeat")
		<-q.exited
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Zero(t, forwarded.Load(), "the delayed item was dropped")
	})
}

func TestAPanicOfStopWhenReachesTheNextCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var failing atomic.Bool
		q := New(Config[int]{
			Forward: func(int) {},
			StopWhen: func() bool {
				if failing.Load() {
					panic("stop failed")
				}
				return false
			},
		})
		defer q.ShutDown()
		failing.Store(true)
		time.Sleep(10 * time.Second) // a heartbeat asks, with no caller waiting
		synctest.Wait()
		failing.Store(false)
		assert.PanicsWithValue(t, "stop failed", func() { q.Len() })
		assert.Equal(t, 0, q.Len(), "raised once")
		assert.False(t, q.ShuttingDown())
	})
}
